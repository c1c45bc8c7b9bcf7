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
