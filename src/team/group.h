/* Groups inside Shoal: the record behind a program's group token (team creation reads it, a
 * team's group is published as a new one). */
#ifndef SHOAL_TEAM_GROUP_H
#define SHOAL_TEAM_GROUP_H

#include "group_algebra.h"
#include "runtime/runtime.h"

/* The live record behind token, or a reported error (SHOAL_ERR_INVAL for NULL or garbage,
 * SHOAL_ERR_STATE for a destroyed group). */
shoal_err_t shoal__group_get(shoal_group_t token, struct shoal_group **g);
/* Registers g (malloc'd, owned by the table from now on) and gives its token; on failure g is
 * freed and SHOAL_ERR_NOMEM reported. */
shoal_err_t shoal__group_publish(struct shoal_group *g, shoal_group_t *out);
/* Frees every group the program did not destroy (finalize). */
void shoal__groups_finalize(void);

#endif
