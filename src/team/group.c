/* Public group API: validation, then the pure algebra of group_algebra.c. */
#include <errno.h>
#include <stdlib.h>

#include "group_algebra.h"
#include "runtime/runtime.h"

static shoal_err_t check_group(shoal_group_t g) {
    return g ? SHOAL_OK : shoal__fail(SHOAL_ERR_INVAL, "NULL group");
}

static shoal_err_t check_unit(shoal_unit_t unit) {
    if (unit < 0 || unit >= shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d out of range 0..%d", (int)unit,
                           (int)shoal__rt.nunits - 1);
    return SHOAL_OK;
}

static shoal_err_t new_group(shoal_group_t *out) {
    shoal_group_t g = malloc(sizeof *g);
    if (!g) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    ga_init(g);
    *out = g;
    return SHOAL_OK;
}

shoal_err_t shoal_group_create(shoal_group_t *group) {
    SHOAL_ENTER("shoal_group_create");
    if (!group) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    return new_group(group);
}

shoal_err_t shoal_group_clone(shoal_group_t group, shoal_group_t *copy) {
    SHOAL_ENTER("shoal_group_clone");
    SHOAL_TRY(check_group(group));
    if (!copy) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    shoal_group_t g = NULL;
    SHOAL_TRY(new_group(&g));
    if (ga_copy(group, g)) {
        free(g);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    *copy = g;
    return SHOAL_OK;
}

shoal_err_t shoal_group_destroy(shoal_group_t *group) {
    SHOAL_ENTER("shoal_group_destroy");
    if (!group || !*group) return shoal__fail(SHOAL_ERR_INVAL, "NULL group");
    ga_release(*group);
    free(*group);
    *group = NULL;
    return SHOAL_OK;
}

shoal_err_t shoal_group_add_member(shoal_group_t group, shoal_unit_t unit) {
    SHOAL_ENTER("shoal_group_add_member");
    SHOAL_TRY(check_group(group));
    SHOAL_TRY(check_unit(unit));
    if (ga_add(group, unit)) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    return SHOAL_OK;
}

shoal_err_t shoal_group_remove_member(shoal_group_t group, shoal_unit_t unit) {
    SHOAL_ENTER("shoal_group_remove_member");
    SHOAL_TRY(check_group(group));
    SHOAL_TRY(check_unit(unit));
    if (ga_remove(group, unit))
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d is not a member", (int)unit);
    return SHOAL_OK;
}

typedef int (*binary_op_t)(const struct shoal_group *, const struct shoal_group *,
                           struct shoal_group *);

static shoal_err_t binary(shoal_group_t a, shoal_group_t b, shoal_group_t *out, binary_op_t op) {
    SHOAL_TRY(check_group(a));
    SHOAL_TRY(check_group(b));
    if (!out) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    shoal_group_t g = NULL;
    SHOAL_TRY(new_group(&g));
    if (op(a, b, g)) {
        ga_release(g);
        free(g);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    *out = g;
    return SHOAL_OK;
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
    SHOAL_TRY(check_group(group));
    if (n <= 0 || !parts)
        return shoal__fail(SHOAL_ERR_INVAL, "need n > 0 (got %d) and an output array", (int)n);
    struct shoal_group *made = calloc((size_t)n, sizeof *made);
    if (!made) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    int32_t built = 0;
    for (; built < n; built++) {
        shoal_group_t g = malloc(sizeof *g);
        if (!g) break;
        ga_init(g);
        parts[built] = g;
    }
    int rc = built < n ? -ENOMEM : ga_split(group, n, made);
    if (rc) {
        for (int32_t i = 0; i < built; i++) free(parts[i]);
        for (int32_t i = 0; i < n; i++) ga_release(&made[i]);
        free(made);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    for (int32_t i = 0; i < n; i++) *parts[i] = made[i]; /* hand over the arrays */
    free(made);
    return SHOAL_OK;
}

shoal_err_t shoal_group_is_member(shoal_group_t group, shoal_unit_t unit, int *is_member) {
    SHOAL_ENTER("shoal_group_is_member");
    SHOAL_TRY(check_group(group));
    SHOAL_TRY(check_unit(unit));
    if (!is_member) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *is_member = ga_find(group, unit) >= 0;
    return SHOAL_OK;
}

shoal_err_t shoal_group_size(shoal_group_t group, int32_t *size) {
    SHOAL_ENTER("shoal_group_size");
    SHOAL_TRY(check_group(group));
    if (!size) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *size = group->size;
    return SHOAL_OK;
}

shoal_err_t shoal_group_members(shoal_group_t group, shoal_unit_t *units) {
    SHOAL_ENTER("shoal_group_members");
    SHOAL_TRY(check_group(group));
    if (!units && group->size) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    for (int32_t i = 0; i < group->size; i++) units[i] = group->units[i];
    return SHOAL_OK;
}
