/* Folding a session's children (sub-agents, forks) in the Sessions pane:
 * '-' and '+' (tui/tree.c; the tree itself is tui/model/model_tree.c). */
#ifndef UI_TREE_H
#define UI_TREE_H

#include "dash.h"

#include <stdbool.h>

/* '-' (Left): folds the selected session's children; on a child, folds
 * its parent and selects it. '+' (Right): unfolds them. */
bool ui_tree_fold(ui_dash *d, int key);

#endif
