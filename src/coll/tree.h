/* Trees over ids 0..p-1 rooted at 0, shared by the tree barriers and tree broadcasts. */
#ifndef SHOAL_COLL_TREE_H
#define SHOAL_COLL_TREE_H

#include <stdint.h>

#define TREE_MAX_CHILDREN 256 /* k-nomial, k = 32, p < 2^31: 31 * 7 = 217 */

typedef struct {
    int32_t parent; /* -1 at the root */
    int32_t n;
    int32_t child[TREE_MAX_CHILDREN]; /* largest subtree first */
} tree_t;

/* k-ary tree: the parent of r is (r - 1) / k, its children k r + 1 .. k r + k. */
void kary_tree(int32_t r, int32_t p, int k, tree_t *t);
/* k-nomial tree: the parent of r is r with its lowest non-zero base-k digit cleared; its children
 * are r + j k^d (j = 1..k-1) for every place d below that digit (every place, at the root). */
void knomial_tree(int32_t r, int32_t p, int k, tree_t *t);

/* Where the members of a team live (coll_team_t's node map). */
typedef struct {
    int32_t nnodes;
    const int32_t *node_of;    /* [p] node of each member */
    const int32_t *by_node;    /* [p] members node by node, ascending within a node */
    const int32_t *node_start; /* [nnodes + 1] */
} node_map_t;

/* The member that heads node n in a collective rooted at root: the root on its own node, the
 * node's first member elsewhere. */
int32_t node_head(const node_map_t *m, int32_t n, int32_t root);
/* Two-level tree over team ids rooted at root: a k-nomial tree over the node heads (the root's
 * node at its top), and below each head a k-nomial tree over its node's members. Children on
 * other nodes come first, so the slow transfers start first. k <= 8 keeps both sets of children
 * within TREE_MAX_CHILDREN. */
void node_tree(const node_map_t *m, int32_t me, int32_t root, int k, tree_t *t);

#endif
