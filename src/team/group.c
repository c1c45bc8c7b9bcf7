/* Public group API: validation, then the pure algebra of group_algebra.c. The program holds
 * tokens of runtime/objtab.h, never the records: a destroyed group (also through a copy of its
 * handle) or a made-up value is recognised without reading freed memory. */
#include <errno.h>
#include <stdlib.h>

#include "group.h"
#include "group_algebra.h"
#include "runtime/objtab.h"
#include "runtime/runtime.h"

shoal_err_t shoal__group_get(shoal_group_t token, struct shoal_group **g) {
    void *obj = NULL;
    if (!token) return shoal__fail(SHOAL_ERR_INVAL, "NULL group");
    switch (objtab_lookup(OBJ_GROUP, (uintptr_t)token, &obj)) {
    case OBJ_LIVE:
        *g = obj;
        return SHOAL_OK;
    case OBJ_STALE:
        return shoal__fail(SHOAL_ERR_STATE, "group %p was destroyed", (void *)token);
    default:
        return shoal__fail(SHOAL_ERR_INVAL, "%p is not a group", (void *)token);
    }
}

static void free_group(void *obj) {
    ga_release(obj);
    free(obj);
}

shoal_err_t shoal__group_publish(struct shoal_group *g, shoal_group_t *out) {
    uintptr_t token = objtab_insert(OBJ_GROUP, g);
    if (!token) {
        free_group(g);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    *out = (shoal_group_t)token;
    return SHOAL_OK;
}

void shoal__groups_finalize(void) {
    objtab_drain(OBJ_GROUP, free_group);
}

static shoal_err_t check_unit(shoal_unit_t unit) {
    if (unit < 0 || unit >= shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d out of range 0..%d", (int)unit,
                           (int)shoal__rt.nunits - 1);
    return SHOAL_OK;
}

static shoal_err_t new_group(struct shoal_group **out) {
    struct shoal_group *g = malloc(sizeof *g);
    if (!g) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    ga_init(g);
    *out = g;
    return SHOAL_OK;
}

shoal_err_t shoal_group_create(shoal_group_t *group) {
    SHOAL_ENTER("shoal_group_create");
    if (!group) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    struct shoal_group *g = NULL;
    SHOAL_TRY(new_group(&g));
    return shoal__group_publish(g, group);
}

shoal_err_t shoal_group_clone(shoal_group_t group, shoal_group_t *copy) {
    SHOAL_ENTER("shoal_group_clone");
    struct shoal_group *src = NULL, *g = NULL;
    SHOAL_TRY(shoal__group_get(group, &src));
    if (!copy) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    SHOAL_TRY(new_group(&g));
    if (ga_copy(src, g)) {
        free_group(g);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    return shoal__group_publish(g, copy);
}

shoal_err_t shoal_group_destroy(shoal_group_t *group) {
    SHOAL_ENTER("shoal_group_destroy");
    if (!group) return shoal__fail(SHOAL_ERR_INVAL, "NULL group pointer");
    struct shoal_group *g = NULL;
    SHOAL_TRY(shoal__group_get(*group, &g));
    free_group(objtab_remove(OBJ_GROUP, (uintptr_t)*group));
    *group = NULL;
    return SHOAL_OK;
}

shoal_err_t shoal_group_add_member(shoal_group_t group, shoal_unit_t unit) {
    SHOAL_ENTER("shoal_group_add_member");
    struct shoal_group *g = NULL;
    SHOAL_TRY(shoal__group_get(group, &g));
    SHOAL_TRY(check_unit(unit));
    if (ga_add(g, unit)) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    return SHOAL_OK;
}

shoal_err_t shoal_group_remove_member(shoal_group_t group, shoal_unit_t unit) {
    SHOAL_ENTER("shoal_group_remove_member");
    struct shoal_group *g = NULL;
    SHOAL_TRY(shoal__group_get(group, &g));
    SHOAL_TRY(check_unit(unit));
    if (ga_remove(g, unit))
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d is not a member", (int)unit);
    return SHOAL_OK;
}

typedef int (*binary_op_t)(const struct shoal_group *, const struct shoal_group *,
                           struct shoal_group *);

static shoal_err_t binary(shoal_group_t a, shoal_group_t b, shoal_group_t *out, binary_op_t op) {
    struct shoal_group *ga = NULL, *gb = NULL, *g = NULL;
    SHOAL_TRY(shoal__group_get(a, &ga));
    SHOAL_TRY(shoal__group_get(b, &gb));
    if (!out) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    SHOAL_TRY(new_group(&g));
    if (op(ga, gb, g)) {
        free_group(g);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    return shoal__group_publish(g, out);
}

shoal_err_t shoal_group_union(shoal_group_t a, shoal_group_t b, shoal_group_t *out) {
    SHOAL_ENTER("shoal_group_union");
    return binary(a, b, out, ga_union);
}

shoal_err_t shoal_group_intersect(shoal_group_t a, shoal_group_t b, shoal_group_t *out) {
    SHOAL_ENTER("shoal_group_intersect");
    return binary(a, b, out, ga_intersect);
}

shoal_err_t shoal_group_split(shoal_group_t group, int32_t n, shoal_group_t *parts) {
    SHOAL_ENTER("shoal_group_split");
    struct shoal_group *src = NULL;
    SHOAL_TRY(shoal__group_get(group, &src));
    if (n <= 0 || !parts)
        return shoal__fail(SHOAL_ERR_INVAL, "need n > 0 (got %d) and an output array", (int)n);
    struct shoal_group *made = calloc((size_t)n, sizeof *made);
    uintptr_t *tokens = calloc((size_t)n, sizeof *tokens);
    int rc = !made || !tokens ? -ENOMEM : ga_split(src, n, made);
    /* Each part becomes a record of its own, registered; all or nothing. */
    int32_t done = 0;
    for (; rc == 0 && done < n; done++) {
        struct shoal_group *g = malloc(sizeof *g);
        if (g) *g = made[done];
        if (!g || !(tokens[done] = objtab_insert(OBJ_GROUP, g))) {
            free(g);
            rc = -ENOMEM;
            break;
        }
        ga_init(&made[done]); /* handed over to the record */
    }
    if (rc) {
        for (int32_t i = 0; i < done; i++) free_group(objtab_remove(OBJ_GROUP, tokens[i]));
        for (int32_t i = 0; made && i < n; i++) ga_release(&made[i]);
        free(made);
        free(tokens);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    for (int32_t i = 0; i < n; i++) parts[i] = (shoal_group_t)tokens[i];
    free(made);
    free(tokens);
    return SHOAL_OK;
}

shoal_err_t shoal_group_is_member(shoal_group_t group, shoal_unit_t unit, int *is_member) {
    SHOAL_ENTER("shoal_group_is_member");
    struct shoal_group *g = NULL;
    SHOAL_TRY(shoal__group_get(group, &g));
    SHOAL_TRY(check_unit(unit));
    if (!is_member) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *is_member = ga_find(g, unit) >= 0;
    return SHOAL_OK;
}

shoal_err_t shoal_group_size(shoal_group_t group, int32_t *size) {
    SHOAL_ENTER("shoal_group_size");
    struct shoal_group *g = NULL;
    SHOAL_TRY(shoal__group_get(group, &g));
    if (!size) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *size = g->size;
    return SHOAL_OK;
}

shoal_err_t shoal_group_members(shoal_group_t group, shoal_unit_t *units) {
    SHOAL_ENTER("shoal_group_members");
    struct shoal_group *g = NULL;
    SHOAL_TRY(shoal__group_get(group, &g));
    if (!units && g->size) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    for (int32_t i = 0; i < g->size; i++) units[i] = g->units[i];
    return SHOAL_OK;
}
