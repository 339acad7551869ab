/* Texts shown in full in the viewer (model.viewer, views/viewer.c): a
 * journal event as pretty JSON, and a checkpoint's preview, what a
 * rollback to it would keep, remove and compensate. Everything here only
 * reads: a preview plans a rollback (ac_checkpoint_plan_rollback) and runs
 * nothing. No curses here. */
#ifndef UI_PREVIEW_H
#define UI_PREVIEW_H

#include "model.h"

#include "ac_workspace.h"

#include <stdint.h>

/* Opens the viewer on the event whose line starts at offset in path (raw,
 * borrowed), pretty-printed; name is how the file is named on screen. A
 * line that cannot be read or is not JSON is said so in the viewer, and
 * so is a line that is no longer event id (NULL: not checked), as after a
 * rotation. */
void ui_preview_event_at(ui_model *m, const char *path, const char *name, uint64_t offset,
			 const char *id);

/* Opens the viewer on the journal event with id (the live tail's): found
 * from the end of the journal and its rotated files, newest first. */
void ui_preview_event_id(ui_model *m, const ac_workspace *ws, const char *id);

/* Opens the viewer on checkpoint ckpt of session: what a rollback to it
 * would keep and remove, the tool calls it would compensate (newest first,
 * with the rollbackTools command or the lack of one), then the
 * checkpoint's messages. */
void ui_preview_checkpoint(ui_model *m, const ac_workspace *ws, const char *session,
			   const char *ckpt);

#endif
