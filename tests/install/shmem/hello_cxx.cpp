// OpenSHMEM from C++ (oshc++): shmem.h, shcoll.h and shmemx.h (which brings shoal.h) compile as
// C++, and the typed routines and the generic overloads link against libshoal. The tool tests only
// build this program.
#include <cstdio>

#include <shcoll.h>
#include <shmemx.h>

static int ints[16];

int main() {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int src[16];
    for (int i = 0; i < 16; i++) src[i] = me + i;
    double *d = static_cast<double *>(shmem_malloc(16 * sizeof(double)));
    shmem_int_put(ints, src, 16, (me + 1) % npes);
    shmem_put(ints, src, 16, (me + 1) % npes); // the generic overload: the same routine
    (void)shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, ints, 1, (me + 1) % npes);
    shmem_ctx_double_p(SHMEM_CTX_DEFAULT, d, 1.5, (me + 1) % npes);
    shmem_barrier_all();
    shmem_complexd_t z = {1.0, 2.0};
    (void)z;
    shoal_unit_t unit = -1;
    shoal_myid(&unit);
    if (me == 0) std::printf("shmem_hello_cxx: PE %d is Shoal unit %d\n", me, (int)unit);
    shmem_free(d);
    shmem_finalize();
    return 0;
}
