/* Unit test of the target checks ZCom_init_c makes, on constructed node memberships (a target on
 * another node cannot be produced on one machine). */
#include <stdio.h>

#include "shoal/zcom.h"
#include "zcom/zcom_internal.h"

static int fails;
static void expect(const char *what, int me, int size, const int *node_of, const int *t, int n,
                   int want_code, int want_bad) {
    int bad = -2, code = zcom__check_targets(me, size, node_of, t, n, &bad);
    if (code != want_code || bad != want_bad) {
        printf("test_zcom_targets: FAIL %s: got %s at %d, want %s at %d\n", what,
               ZCom_strerror(code), bad, ZCom_strerror(want_code), want_bad);
        fails++;
    }
}

int main(void) {
    /* 6 ranks on two nodes: node 0 = {0,1,2}, node 3 = {3,4,5}. */
    const int two_nodes[6] = {0, 0, 0, 3, 3, 3};
    const int one_node[6] = {0, 0, 0, 0, 0, 0};
    const int interleaved[6] = {0, 1, 0, 1, 0, 1};
    int t[4];
    t[0] = 1, t[1] = 2;
    expect("same node", 0, 6, two_nodes, t, 2, ZCOM_SUCCESS, -1);
    t[0] = 1, t[1] = 3;
    expect("other node", 0, 6, two_nodes, t, 2, ZCOM_ERR_NOT_LOCAL, 1);
    t[0] = 4, t[1] = 5;
    expect("other node (first)", 1, 6, two_nodes, t, 2, ZCOM_ERR_NOT_LOCAL, 0);
    expect("same node, upper half", 3, 6, two_nodes, t, 2, ZCOM_SUCCESS, -1);
    expect("one node", 0, 6, one_node, t, 2, ZCOM_SUCCESS, -1);
    t[0] = 2, t[1] = 4, t[2] = 1;
    expect("interleaved ok", 0, 6, interleaved, t, 2, ZCOM_SUCCESS, -1);
    expect("interleaved remote", 0, 6, interleaved, t, 3, ZCOM_ERR_NOT_LOCAL, 2);
    t[0] = 6;
    expect("out of range", 0, 6, one_node, t, 1, ZCOM_ERR_RANK, 0);
    t[0] = -1;
    expect("negative", 0, 6, one_node, t, 1, ZCOM_ERR_RANK, 0);
    t[0] = 1, t[1] = 0;
    expect("myself", 0, 6, one_node, t, 2, ZCOM_ERR_RANK, 1);
    t[0] = 1, t[1] = 2, t[2] = 1;
    expect("twice", 0, 6, one_node, t, 3, ZCOM_ERR_RANK, 2);
    expect("none", 0, 6, one_node, t, 0, ZCOM_SUCCESS, -1);
    /* range is checked before locality */
    t[0] = 9;
    expect("out of range before locality", 0, 6, two_nodes, t, 1, ZCOM_ERR_RANK, 0);
    printf(fails ? "test_zcom_targets: FAILED\n" : "test_zcom_targets: OK\n");
    return fails != 0;
}
