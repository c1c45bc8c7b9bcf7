/* shoal.h from strict C99 with -pedantic. */
#include <shoal.h>

int header_c_uses(void);
int header_c_uses(void) {
    shoal_gptr_t gp = SHOAL_GPTR_NULL;
    shoal_type_t t = SHOAL_INT64;
    return shoal_gptr_is_null(gp) + (t == SHOAL_TYPE_INT64) + (SHOAL_OP_BAND == SHOAL_RED_AND);
}
