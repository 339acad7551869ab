/* The dashboard's usage total and budget line: what today and this month
 * cost over every usage source of the workspace (ac_usage_report.h),
 * measured on a worker thread (a cold index may take seconds) every
 * minute, against usage.budgetUsd {day, month}. The core computes; this
 * keeps the latest figures and words them; the status line draws them.
 * No curses here. */
#ifndef UI_USAGE_METER_H
#define UI_USAGE_METER_H

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_workspace.h"
#include "model.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ui_usage_meter ui_usage_meter;

/* Starts measuring for ws with config's sources, pricing and budget.
 * 0, or AC_ENOMEM/AC_EIO (then no meter: the dashboard goes on without). */
int ui_usage_meter_start(ui_usage_meter **out, const ac_workspace *ws, const ac_config *config);

/* Readable when new figures are in (read it with ui_usage_meter_ack). */
int ui_usage_meter_fd(const ui_usage_meter *m);
void ui_usage_meter_ack(ui_usage_meter *m);

/* Appends "usage today $X of $B  month $Y of $C" (budgets when set;
 * "over budget" when past one; "cost unknown" for unpriced models) to
 * out; false (nothing appended) before the first figures. *out_over is
 * set when a budget is passed. */
bool ui_usage_meter_line(ui_usage_meter *m, ac_buf *out, bool *out_over);

/* Hands model the transcripts' token totals of the latest scan when they
 * are newer than *seen_gen (updated), for the TOKENS of the transcripts
 * whose tool says none (ui_model_take_usage_tokens). True when a row
 * changed. */
bool ui_usage_meter_tokens(ui_usage_meter *m, uint64_t *seen_gen, ui_model *model);

/* Stops the thread and frees m (NULL: nothing). */
void ui_usage_meter_stop(ui_usage_meter *m);

#endif
