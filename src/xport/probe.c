/* The on-node mechanism chain (ARCHITECTURE.md decision 9): XPMEM when its device answers, else
 * node-shared memory, else MPI. This build detects XPMEM but has no XPMEM attach path yet (no
 * machine here has the device to test one), so detection only informs shoal-info and the debug log.
 */
#include <dlfcn.h>
#include <unistd.h>

#include "probe.h"

int xport_xpmem_present(void) {
    if (access("/dev/xpmem", R_OK | W_OK) != 0) return 0;
    void *lib = dlopen("libxpmem.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) return 0;
    dlclose(lib);
    return 1;
}
