#include "tree.h"

void kary_tree(int32_t r, int32_t p, int k, tree_t *t) {
    t->parent = r ? (int32_t)((r - 1) / k) : -1;
    t->n = 0;
    for (int64_t c = (int64_t)k * r + 1; c <= (int64_t)k * r + k && c < p; c++)
        t->child[t->n++] = (int32_t)c;
}

void knomial_tree(int32_t r, int32_t p, int k, tree_t *t) {
    int64_t m = 1; /* place value of r's lowest non-zero digit; at the root the first k^d >= p */
    if (r) {
        while ((r / m) % k == 0) m *= k;
        t->parent = (int32_t)(r - ((r / m) % k) * m);
    } else {
        while (m < p) m *= k;
        t->parent = -1;
    }
    t->n = 0;
    for (int64_t place = m / k; place >= 1; place /= k)
        for (int j = 1; j < k && r + j * place < p && t->n < TREE_MAX_CHILDREN; j++)
            t->child[t->n++] = (int32_t)(r + j * place);
}

int32_t node_head(const node_map_t *m, int32_t n, int32_t root) {
    return n == m->node_of[root] ? root : m->by_node[m->node_start[n]];
}

/* Where member id sits in its node's group. */
static int32_t node_pos(const node_map_t *m, int32_t n, int32_t id) {
    for (int32_t i = m->node_start[n]; i < m->node_start[n + 1]; i++)
        if (m->by_node[i] == id) return i - m->node_start[n];
    return 0; /* not reached: id lives on node n */
}

void node_tree(const node_map_t *m, int32_t me, int32_t root, int k, tree_t *t) {
    int32_t nn = m->nnodes, rn = m->node_of[root], mn = m->node_of[me];
    const int32_t *mates = m->by_node + m->node_start[mn];
    int32_t cnt = m->node_start[mn + 1] - m->node_start[mn];
    int32_t head = mn == rn ? node_pos(m, mn, root) : 0; /* the node's tree is rotated to it */
    int32_t pos = (node_pos(m, mn, me) - head + cnt) % cnt;
    tree_t inter = {.parent = -1, .n = 0}, intra;
    if (pos == 0) knomial_tree((mn - rn + nn) % nn, nn, k, &inter);
    knomial_tree(pos, cnt, k, &intra);
    if (pos == 0)
        t->parent = inter.parent >= 0 ? node_head(m, (inter.parent + rn) % nn, root) : -1;
    else
        t->parent = mates[(intra.parent + head) % cnt];
    t->n = 0;
    for (int32_t i = 0; i < inter.n; i++)
        t->child[t->n++] = node_head(m, (inter.child[i] + rn) % nn, root);
    for (int32_t i = 0; i < intra.n && t->n < TREE_MAX_CHILDREN; i++)
        t->child[t->n++] = mates[(intra.child[i] + head) % cnt];
}
