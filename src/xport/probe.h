#ifndef SHOAL_XPORT_PROBE_H
#define SHOAL_XPORT_PROBE_H
/* 1 when /dev/xpmem is usable and libxpmem loads. */
int xport_xpmem_present(void);
#endif
