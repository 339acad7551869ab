/* The dashboard: scan -> update -> draw (htop's ScreenManager). What it
 * waits on (the terminal, the workspace watcher, a store, a running job,
 * the usage meter, the tools' transcripts) and what it does each turn are
 * sources registered with the loop (loop.h); what a watcher reports is
 * read (only that), keys go through the key table (keys.c), and the
 * screen is drawn (frame.c) once per turn, only when something changed,
 * so an idle dashboard sleeps. */
#include "dashboard.h"
#include "usage_meter.h"

#include "csearch.h"
#include "notify.h"

#include "dash.h"
#include "drill.h"
#include "frame.h"
#include "frame_trace.h"
#include "keys.h"
#include "layout.h"
#include "loop.h"
#include "screen.h"
#include "settings.h"
#include "ui_text.h"
#include "view.h"

#include "ac_error.h"
#include "ac_time.h"
#include "ac_store_watch.h"
#include "ac_watch.h"
#include "ac_watch_mode.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The coding agents' transcripts: their states (which change with time
 * alone) are derived again every TRANSCRIPT_STATE_MS; the files are read
 * when their folders' watch fires, and at least every TRANSCRIPT_POLL_MS
 * (every TRANSCRIPT_STATE_MS without inotify). */
#define TRANSCRIPT_STATE_MS 1000
#define TRANSCRIPT_POLL_MS 10000
#define CSEARCH_STEP_MS 30  /* one loop's share of the conversation search */
#define CSEARCH_DRAW_MS 250 /* how often its results are drawn while it runs */

/* ---- the loop ------------------------------------------------------- */

/* How long poll() may sleep: until the watcher wants to look again, or an
 * age on screen ticks (a session updated a minute ago must not still say
 * "0s"), or a pending resume may have become late. -1: no limit. */
static int wait_ms(const ui_dash *d, int64_t now)
{
	int watch = ac_watch_timeout_ms(d->watch), tick = -1;

	if (d->m.search.running || d->m.conv_search.running)
		return 0; /* the search reads on between keys */
	if (d->redraw_at) {
		int64_t left = d->redraw_at - now;

		tick = left < 0 ? 0 : left > 3600000 ? 3600000 : (int)left;
	}
	if (d->job) {
		int job = ui_job_tick_ms(d->job, now);

		tick = tick < 0 || job < tick ? job : tick;
	}
	if (d->m.n_pending_quiet && tick != 0)
		tick = tick < 0 || tick > 1000 ? 1000 : tick;
	/* A running rollback's end by a kill changes no file: looked at again. */
	if (d->m.intent_running)
		tick = tick < 0 || tick > 1000 ? 1000 : tick;
	if (d->m.states_change_at) { /* a running session turns idle */
		int64_t left = d->m.states_change_at - now;
		int in = left < 0 ? 0 : left > 3600000 ? 3600000 : (int)left;

		tick = tick < 0 || in < tick ? in : tick;
	}
	if (d->m.n_transcripts || ui_source_transcript_folders(d->src)) {
		int64_t left = d->transcripts_at - now;
		int poll_in = left < 0 ? 0 : left > TRANSCRIPT_STATE_MS ? TRANSCRIPT_STATE_MS : (int)left;

		tick = tick < 0 || poll_in < tick ? poll_in : tick;
	}
	if (d->store_watch) {
		int store = ac_store_watch_timeout_ms(d->store_watch);

		watch = store >= 0 && (watch < 0 || store < watch) ? store : watch;
	}
	if (watch < 0)
		return tick;
	return tick < 0 || watch < tick ? watch : tick;
}

/* A database store told of changes (or connected again). What the
 * notifications name is read alone: the rows of the sessions they named,
 * else the sessions, the open conversation and its trace; the
 * journal's new events by seq; the checkpoint list when its session's
 * changed. After a reconnection everything is read again once (what was
 * sent meanwhile was not heard). */
static void read_store_changes(ui_dash *d)
{
	const char *ckpt_session;
	unsigned heard = ac_store_watch_read(d->store_watch, NULL), changed = 0;

	if (!heard)
		return;
	if (heard & AC_STORE_RESCAN)
		changed = ui_source_update(d->src, &d->m, AC_WATCH_SESSIONS | AC_WATCH_TRACES |
				      AC_WATCH_JOURNAL | AC_WATCH_CHECKPOINTS);
	else if (heard & AC_STORE_CHANGED)
		changed = ui_source_store_changed(d->src, &d->m, d->store_watch);
	if ((heard & AC_STORE_JOURNAL) && !(heard & AC_STORE_RESCAN))
		changed |= ui_source_update(d->src, &d->m, AC_WATCH_JOURNAL);
	ckpt_session = ac_store_watch_checkpoint_session(d->store_watch);
	if ((heard & AC_STORE_CHECKPOINTS) && !(heard & AC_STORE_RESCAN) && d->m.ckpt_session &&
	    (!*ckpt_session || !strcmp(ckpt_session, d->m.ckpt_session)))
		changed |= ui_source_update(d->src, &d->m, AC_WATCH_CHECKPOINTS);
	d->dirty = d->dirty || changed;
	if ((changed & UI_CHANGED_CONVERSATION) && ui_dash_is_open(d, &ui_overlay_conversation))
		ui_dash_conversation_reloaded(d);
}

/* ---- input ------------------------------------------------------------ */


static void mouse(ui_dash *d, const ui_input *in)
{
	ui_pane_id cur = ui_dash_current(d);
	const ui_view *v = ui_pane_views[cur];

	int other = ui_frame_pane_at(in);

	/* A click in another of the panes on screen moves there; its rows
	 * move with the new layout, so the next click selects. */
	if (cur != UI_PANE_DIALOG && in->mouse == UI_MOUSE_CLICK && other >= 0 &&
	    other != ui_layout_slot(cur)) {
		ui_dash_switch_pane(d, (ui_pane_id)other);
		d->dirty = true;
		return;
	}
	if (in->mouse == UI_MOUSE_WHEEL_UP || in->mouse == UI_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			ui_keys_dispatch(d, in->mouse == UI_MOUSE_WHEEL_UP ? UI_KEY_UP : UI_KEY_DOWN);
	} else if (in->mouse == UI_MOUSE_CLICK && v && v->count) {
		d->dirty = ui_list_click(v, &d->m, &d->panes[cur], in->y);
	}
}

/* Keys go to the top overlay when it takes them (a line being typed),
 * else to the key table. */
static void input(ui_dash *d)
{
	ui_input in;
	const ui_overlay *top;

	while (!d->quit && screen_read(&in)) {
		if (in.key == UI_KEY_RESIZE) {
			d->dirty = true;
		} else if (in.key == UI_KEY_MOUSE) {
			mouse(d, &in);
		} else if ((top = ui_overlay_top(&d->open, d)) && top->key) {
			top->key(d, &in);
		} else if (in.key) {
			ui_keys_dispatch(d, in.key);
		}
	}
}

/* ---- the loop's sources -------------------------------------------------- */

/* What dashboard_run set up, shared by the loop's sources. */
typedef struct {
	ui_dash *d;
	const ac_workspace *ws;
	ui_settings settings;
	ui_notify *notify;
	ui_csearch_engine *csearch;
	int64_t csearch_drawn;
	uint64_t usage_gen;      /* the usage meter's totals the model has */
	FILE *frames;
	int job_src, store_src, transcripts_src;
} run_state;

/* The settings file, the status line's message and the ages on screen.
 * Woken at least every second by the settings check. */
static void on_clock(ui_loop *loop, int fd, short revents, void *data)
{
	run_state *r = data;
	ui_dash *d = r->d;

	(void)loop, (void)fd, (void)revents;
	if (ui_settings_check(&r->settings, d, ac_time_now_ms()))
		d->dirty = true;
	if (!d->job && ui_model_action_expire(&d->m, ac_time_now_ms()))
		d->dirty = true;
	if (d->redraw_at && ac_time_now_ms() >= d->redraw_at)
		d->dirty = true;
}

/* The confirmed action running off the loop: its line ticks, its end is
 * read. */
static void on_job(ui_loop *loop, int fd, short revents, void *data)
{
	ui_dash *d = ((run_state *)data)->d;

	(void)loop, (void)fd, (void)revents;
	if (d->job)
		d->dirty = true;
	if (d->job && ui_job_done(d->job))
		ui_dash_job_finished(d);
}

/* States that change with time alone. */
static void on_states(ui_loop *loop, int fd, short revents, void *data)
{
	ui_dash *d = ((run_state *)data)->d;

	(void)loop, (void)fd, (void)revents;
	/* "resuming" turns "stalled" with time alone. */
	if (d->m.n_pending_quiet && ui_source_recheck_pending(d->src, &d->m))
		d->dirty = true;
	if (ui_model_derive_states(&d->m, ac_time_now_ms()))
		d->dirty = true;
	if (d->m.intent_running && ui_source_update(d->src, &d->m, AC_WATCH_OPERATIONS))
		d->dirty = true;
}

/* Keys first (they may change what is shown), then files. Input is also
 * read after EINTR: SIGWINCH arrives as KEY_RESIZE. A terminal gone ends
 * the loop after this turn. */
static void on_terminal(ui_loop *loop, int fd, short revents, void *data)
{
	(void)fd;
	input(((run_state *)data)->d);
	if (revents & (POLLHUP | POLLERR))
		ui_loop_stop(loop);
}

/* The journal's search and the Sessions filter's look in conversations
 * read on between keys. */
static void on_searches(ui_loop *loop, int fd, short revents, void *data)
{
	run_state *r = data;
	ui_dash *d = r->d;

	(void)loop, (void)fd, (void)revents;
	if (ui_drill_step(d))
		d->dirty = true;
	/* Its hits are drawn a few times a second while it reads: filtering
	 * 10,000 rows again after every slice would take most of the time. */
	if (ui_csearch_sync(&r->csearch, &d->m, r->ws, d->panes[UI_PANE_SESSIONS].filter) |
	    ui_csearch_step(r->csearch, &d->m, CSEARCH_STEP_MS)) {
		int64_t now_ms = ac_time_now_ms();

		if (!d->m.conv_search.running || now_ms - r->csearch_drawn >= CSEARCH_DRAW_MS) {
			d->dirty = true;
			r->csearch_drawn = now_ms;
		}
	}
}

/* The workspace's files (inotify, or a poll on its timeout). */
static void on_watch(ui_loop *loop, int fd, short revents, void *data)
{
	ui_dash *d = ((run_state *)data)->d;
	unsigned changed = ac_watch_read(d->watch);

	(void)loop, (void)fd, (void)revents;
	if (changed && (changed = ui_source_update_watched(d->src, &d->m, d->watch, changed))) {
		d->dirty = true;
		if ((changed & UI_CHANGED_CONVERSATION) && ui_dash_is_open(d, &ui_overlay_conversation))
			ui_dash_conversation_reloaded(d);
	}
}

static void on_store(ui_loop *loop, int fd, short revents, void *data)
{
	(void)loop, (void)fd, (void)revents;
	read_store_changes(((run_state *)data)->d);
}

static void on_meter(ui_loop *loop, int fd, short revents, void *data)
{
	run_state *r = data;

	(void)loop, (void)fd;
	if (!(revents & POLLIN))
		return;
	ui_usage_meter_ack(r->d->meter);
	ui_usage_meter_tokens(r->d->meter, &r->usage_gen, &r->d->m); /* TOKENS of transcripts */
	r->d->dirty = true;
}

/* The tools' folders are not the workspace's: their own watch, and a
 * slow poll for what it cannot see (a stat per transcript, then only
 * appended bytes). */
static void on_transcripts(ui_loop *loop, int fd, short revents, void *data)
{
	ui_dash *d = ((run_state *)data)->d;
	int64_t at = ac_time_now_ms();
	bool refresh = (revents & POLLIN) || at >= d->transcripts_refresh_at;
	unsigned changed;

	(void)loop;
	if (!ui_source_transcript_folders(d->src) || (!(revents & POLLIN) && at < d->transcripts_at))
		return;
	d->transcripts_at = at + TRANSCRIPT_STATE_MS;
	if (refresh)
		d->transcripts_refresh_at = at + (fd >= 0 ? TRANSCRIPT_POLL_MS : TRANSCRIPT_STATE_MS);
	changed = ui_source_poll_transcripts(d->src, &d->m, refresh);
	if (changed)
		d->dirty = true;
	if ((changed & UI_CHANGED_CONVERSATION) && ui_dash_is_open(d, &ui_overlay_conversation))
		ui_dash_conversation_reloaded(d);
}

/* Hooks on the state changes seen this turn. */
static void on_hooks(ui_loop *loop, int fd, short revents, void *data)
{
	run_state *r = data;
	unsigned told = ui_notify_scan(r->notify, &r->d->m, ui_source_store_label(r->d->src));

	(void)loop, (void)fd, (void)revents;
	if (told & UI_NOTIFY_BELL)
		screen_beep();
	if (told & UI_NOTIFY_SAID)
		r->d->dirty = true;
}

/* In the order a turn reads them: time, keys, searches, then files. */
static int add_sources(ui_loop *loop, run_state *r)
{
	ui_dash *d = r->d;
	int ids[] = {
		ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_clock, r),
		r->job_src = ui_loop_add(loop, -1, POLLIN, UI_LOOP_EVERY_TURN, on_job, r),
		ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_states, r),
		ui_loop_add(loop, STDIN_FILENO, POLLIN, UI_LOOP_EVERY_TURN, on_terminal, r),
		ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_searches, r),
		ui_loop_add(loop, ac_watch_fd(d->watch), POLLIN, UI_LOOP_EVERY_TURN, on_watch, r),
		r->store_src = d->store_watch
			? ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_store, r) : 0,
		ui_loop_add(loop, ui_usage_meter_fd(d->meter), POLLIN, 0, on_meter, r),
		r->transcripts_src = ui_loop_add(loop, -1, POLLIN, UI_LOOP_EVERY_TURN,
						 on_transcripts, r),
		ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_hooks, r),
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i] < 0)
			return ids[i];
	return 0;
}

/* Before a turn waits: the frame, if anything changed, and the fds that
 * come and go (a job's pipe, a store's socket, the tools' folders). */
static int prepare(ui_loop *loop, run_state *r)
{
	ui_dash *d = r->d;
	short store_events = 0;
	int store_fd = d->store_watch ? ac_store_watch_fd(d->store_watch, &store_events) : -1;
	int64_t now;
	int wait, check;

	ui_loop_set_fd(loop, r->job_src, d->job ? ui_job_fd(d->job) : -1, POLLIN);
	if (d->store_watch)
		ui_loop_set_fd(loop, r->store_src, store_fd, store_events);
	ui_loop_set_fd(loop, r->transcripts_src, ui_source_transcripts_fd(d->src), POLLIN);
	if (d->dirty) {
		ui_frame_draw(d);
		ui_frame_trace_drawn(r->frames, &d->m);
		d->dirty = false;
	}
	now = ac_time_now_ms();
	wait = wait_ms(d, now);
	check = ui_settings_wait_ms(&r->settings, now);
	return wait < 0 || check < wait ? check : wait;
}

/* ---- setup ------------------------------------------------------------- */

/* Theme folders, first match wins: the user's own
 * ($XDG_CONFIG_HOME/agentctl/themes, default ~/.config/agentctl/themes);
 * the install tree the binary sits in (<bindir>/AC_THEME_RELDIR, so a moved
 * tree still works); a build tree's copy beside the binary; the configured
 * install prefix's datadir. Never the source tree. */
static void find_theme_dirs(ui_dash *d)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	size_t k = 0;

	if (xdg && xdg[0] == '/')
		snprintf(d->user_dir, sizeof(d->user_dir), "%s/agentctl/themes", xdg);
	else if (home && home[0] == '/')
		snprintf(d->user_dir, sizeof(d->user_dir), "%s/.config/agentctl/themes", home);
	if (d->user_dir[0])
		d->dirs[k++] = d->user_dir;
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		if ((slash = strrchr(exe, '/'))) {
			*slash = '\0';
			snprintf(d->share_dir, sizeof(d->share_dir), "%.*s/%s",
				 (int)(sizeof(d->share_dir) - sizeof(AC_THEME_RELDIR) - 2), exe,
				 AC_THEME_RELDIR);
			d->dirs[k++] = d->share_dir;
			snprintf(d->build_dir, sizeof(d->build_dir), "%.*s/themes",
				 (int)(sizeof(d->build_dir) - 8), exe);
			d->dirs[k++] = d->build_dir;
		}
	}
	d->dirs[k++] = AC_THEME_PREFIX_DIR;
	d->dirs[k] = NULL;
	d->n_themes = ui_theme_list(d->themes, UI_MAX_THEMES, d->dirs);
}


/* Everything before the first frame: the theme, the watchers, the store,
 * hooks, the usage meter, then the terminal. On failure what was made is
 * freed by dashboard_run. */
static int start(run_state *r, const ac_config *config, const dashboard_options *options)
{
	ui_dash *d = r->d;
	const ac_workspace *ws = r->ws;
	ac_watch_mode watch_mode;
	const char *reason = NULL, *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
	char theme_name[256], theme_why[256], theme_err[600] = "";
	int status;

	ui_dash_init(d, ws, options && options->read_only);
	ui_keys_describe(&d->m);
	ui_text_locale();
	find_theme_dirs(d);
	ui_settings_initial_theme(config, theme_name, theme_why, sizeof(theme_name));
	if (ui_theme_load(&d->theme, theme_name, d->dirs, ui_settings_theme_path_ok(config),
			  theme_err, sizeof(theme_err)) != 0) {
		snprintf(d->theme.name, sizeof(d->theme.name), "dark");
	} else {
		char line[600];

		snprintf(line, sizeof(line), "theme: %s (%s)", theme_name, theme_why);
		ui_model_log(&d->m, false, line);
	}
	r->frames = ui_frame_trace_open(&d->m); /* before the first read: every row is new */
	ac_watch_mode_choose(&watch_mode, ws, ac_config_string(config, "watch", "auto"));
	if (ac_watch_new(&d->watch, d->ws, watch_mode.poll ? -UI_WATCH_POLL_MS : UI_WATCH_POLL_MS) != 0 ||
	    ui_source_new(&d->src, &d->m, d->ws) != 0)
		return AC_EIO;
	d->config = config;
	if ((status = ui_source_use_store(d->src)) ||
	    (status = ui_source_watch_store(d->src, &d->store_watch)))
		return status;
	if (options && options->no_workspace) {
		/* The title names what is shown: the database, not a folder. */
		ui_sfree(d->m.workspace);
		d->m.workspace = ui_safe_str(ac_workspace_store_where(ws));
		d->m.no_workspace = true;
		ui_model_log(&d->m, false, "no workspace here: sessions, the journal and checkpoints "
			     "from the database; no operations log, no git, no hooks run (they "
			     "log in a workspace's .agent/)");
	}
	ui_settings_init(&r->settings, ws, config);
	/* Without a meter (no thread, no pipe) the status line just has no
	 * usage figures. */
	if (config && ui_usage_meter_start(&d->meter, ws, config) != 0)
		ui_model_log(&d->m, true, ac_error_last());
	if (watch_mode.poll)
		d->m.polling = strdup(watch_mode.reason);
	else if (ac_watch_polling(d->watch, &reason))
		d->m.polling = strdup(reason ? reason : "inotify unavailable");
	if (theme_err[0])
		ui_model_set_action(&d->m, true, "theme: %s (%s; using the default)", theme_err,
				    theme_why);
	/* Hooks run on state changes seen from here on; an untrusted one is
	 * said once, and never run. --read-only runs none, nor does a
	 * dashboard with no workspace (their log would make one there).
	 * onStatusChange runs in the one dashboard that holds the
	 * workspace's (or the database's) hooks lease. */
	if ((status = ui_notify_new(&r->notify, ws,
				    !(options && (options->read_only || options->no_workspace)),
				    ui_source_store(d->src))))
		return status;
	if (ui_notify_refusal(r->notify))
		ui_model_set_action(&d->m, true, "hooks: %s", ui_notify_refusal(r->notify));
	ui_notify_scan(r->notify, &d->m, ui_source_store_label(d->src));
	if (!term || !*term || !strcmp(term, "dumb"))
		return ac_error_set(AC_EINVAL, "the dashboard needs a terminal that can move the "
				    "cursor, and TERM=%s is not one; run it in a terminal emulator "
				    "or set TERM (e.g. TERM=xterm-256color)", term ? term : "");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return ac_error_set(AC_EINVAL, "the dashboard needs a terminal (is TERM set?)");
	return screen_init(&d->theme, !(no_color && *no_color));
}

int dashboard_run(const ac_workspace *ws, const ac_config *config,
		  const dashboard_options *options)
{
	static ui_dash d; /* large (the journal ring): not on the stack */
	static run_state r;
	ui_loop *loop = NULL;
	int status;

	r = (run_state){.d = &d, .ws = ws};
	if ((status = start(&r, config, options)))
		goto done;
	if ((status = ui_loop_new(&loop)) || (status = add_sources(loop, &r))) {
		screen_fini();
		goto done;
	}
	d.dirty = true;
	while (!d.quit && !screen_stop_requested() && !ui_loop_stopped(loop))
		if (ui_loop_turn(loop, prepare(loop, &r)) != 0)
			break;
	if (d.job) {
		/* Leaving: a summariser is cancelled, a rollback of files is
		 * never left half done. */
		ui_dash_job_cancel(&d);
		ui_model_set_action(&d.m, false, "quitting once it has finished");
		ui_frame_draw(&d);
		ui_dash_job_wait(&d);
	}
	screen_fini();
done:
	ui_loop_free(loop);
	ui_usage_meter_stop(d.meter);
	ui_frame_trace_close(r.frames);
	ui_notify_free(r.notify);
	ui_csearch_free(r.csearch);
	ac_store_watch_free(d.store_watch);
	ui_dash_free(&d);
	ui_settings_free(&r.settings);
	return status;
}
