// shoal.h from C++ with -pedantic: every inline helper and macro must be valid C++11.
#include <shoal.h>

int header_cxx_uses(void);
int header_cxx_uses(void) {
    shoal_gptr_t gp = SHOAL_GPTR_NULL;
    gp = shoal_gptr_add(shoal_gptr_setunit(gp, 1), 64);
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    shoal_type_t t = SHOAL_INT64;      // one enum: the atomics' name is a type value
    shoal_red_op_t op = SHOAL_OP_BXOR; // and an operation value
    shoal_dtype_t dt = SHOAL_TYPE_DOUBLE;
    int major = 0;
    (void)shoal_version(&major, nullptr, nullptr);
    return shoal_gptr_is_null(gp) + shoal_gptr_equal(gp, SHOAL_GPTR_NULL) + (h == nullptr) +
           (t == SHOAL_TYPE_INT64) + (op == SHOAL_RED_XOR) + (dt == SHOAL_DOUBLE) + major +
           (SHOAL_TEAM_ALL == 0);
}
