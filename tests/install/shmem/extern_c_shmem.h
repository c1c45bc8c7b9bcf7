/* Pre-included (-include) before generic_all.c by tools.shmem_header.cxx_extern_c: shmem.h and
 * shmemx.h inside an extern "C" block, as some programs' and test suites' own headers include
 * them; the C++ generic overloads must still compile (they carry extern "C++"). */
extern "C" {
#include <shmem.h>
#include <shmemx.h>
}
