/* ZCom internals shared with the unit tests. */
#ifndef SHOAL_ZCOM_INTERNAL_H
#define SHOAL_ZCOM_INTERNAL_H

/* Checks a target list against the communicator's node membership: node_of[r] names the node of
 * comm rank r (equal values: same node). Returns ZCOM_SUCCESS, or the code of the first bad target
 * (out of range or myself: ZCOM_ERR_RANK; listed twice: ZCOM_ERR_RANK; on another node:
 * ZCOM_ERR_NOT_LOCAL) with its index in *bad. */
int zcom__check_targets(int me, int size, const int *node_of, const int *targets, int n, int *bad);

#endif
