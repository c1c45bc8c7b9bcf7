/* Configuration: one table (config.c) of every environment variable drives parsing, defaults,
 * shoal-info and the README table. */
#ifndef SHOAL_RUNTIME_CONFIG_H
#define SHOAL_RUNTIME_CONFIG_H

#include "runtime.h"

/* Reads every variable into rt; a malformed value is reported and fails init. */
shoal_err_t shoal__config_load(shoal_runtime_t *rt);
/* Parses "64M", "1g", "4096" into bytes; 0 on success. */
int shoal__parse_size(const char *text, size_t *bytes);

#endif
