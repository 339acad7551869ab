/* The derived state of a session (ac_session_state.h): fixture sequences
 * of inputs, as the adapters fill them, against the state they give. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ac_error.h"
#include "ac_session_state.h"

#include <string.h>

static const ac_state_thresholds limits = {5000, 300000, 3600000};

static ac_session_state derive(ac_turn turn, size_t pending, bool approval, int64_t quiet)
{
	ac_state_inputs in = {NULL, turn, pending, approval, quiet, AC_AGENT_UNKNOWN};

	return ac_session_state_derive(&in, &limits);
}

static void test_transcript_states(void **state)
{
	(void)state;
	/* A prompt just came in: the agent works. */
	assert_int_equal(derive(AC_TURN_AGENT, 0, false, 100), AC_STATE_RUNNING);
	/* It answered: the operator's turn. */
	assert_int_equal(derive(AC_TURN_USER, 0, false, 100), AC_STATE_WAITING);
	assert_int_equal(derive(AC_TURN_NONE, 0, false, 100), AC_STATE_WAITING);
	/* A tool call without a result: running while fresh, then a
	 * permission prompt is the likely reason for the silence. */
	assert_int_equal(derive(AC_TURN_AGENT, 1, false, 4999), AC_STATE_RUNNING);
	assert_int_equal(derive(AC_TURN_AGENT, 1, false, 5000), AC_STATE_WAITING);
	/* ... and it stays waiting past the idle bound, until ended. */
	assert_int_equal(derive(AC_TURN_AGENT, 1, false, 600000), AC_STATE_WAITING);
	assert_int_equal(derive(AC_TURN_AGENT, 1, false, 3600000), AC_STATE_ENDED);
	/* The transcript says so itself (Codex, Gemini). */
	assert_int_equal(derive(AC_TURN_AGENT, 0, true, 0), AC_STATE_WAITING);
	/* Quiet. */
	assert_int_equal(derive(AC_TURN_AGENT, 0, false, 300000), AC_STATE_IDLE);
	assert_int_equal(derive(AC_TURN_USER, 0, false, 300000), AC_STATE_IDLE);
	assert_int_equal(derive(AC_TURN_USER, 0, false, 7200000), AC_STATE_ENDED);
	/* A clock that went back is "just written". */
	assert_int_equal(derive(AC_TURN_AGENT, 0, false, -50), AC_STATE_RUNNING);
}

static void test_seed_statuses(void **state)
{
	ac_state_inputs in = {"running", AC_TURN_NONE, 0, false, 10, AC_AGENT_UNKNOWN};

	(void)state;
	assert_int_equal(ac_session_state_derive(&in, &limits), AC_STATE_RUNNING);
	in.quiet_ms = 300000;
	assert_int_equal(ac_session_state_derive(&in, &limits), AC_STATE_IDLE);
	/* A seed session is ended only by its status. */
	in.quiet_ms = 999999999;
	assert_int_equal(ac_session_state_derive(&in, &limits), AC_STATE_IDLE);
	in.seed_status = "paused";
	assert_int_equal(ac_session_state_derive(&in, &limits), AC_STATE_PAUSED);
	in.seed_status = "completed";
	assert_int_equal(ac_session_state_derive(&in, NULL), AC_STATE_COMPLETED);
	in.seed_status = "failed";
	assert_int_equal(ac_session_state_derive(&in, NULL), AC_STATE_FAILED);
}

static void test_names_round_trip(void **state)
{
	ac_session_state s;

	(void)state;
	assert_string_equal(ac_session_state_name(AC_STATE_RUNNING), "running");
	assert_string_equal(ac_session_state_name(AC_STATE_WAITING), "waiting");
	assert_string_equal(ac_session_state_name(AC_STATE_IDLE), "idle");
	assert_string_equal(ac_session_state_name(AC_STATE_ENDED), "ended");
	assert_string_equal(ac_session_state_name(AC_STATE_COUNT), "?");
	for (int i = 0; i < AC_STATE_COUNT; i++) {
		assert_int_equal(ac_session_state_parse(&s, ac_session_state_name(i)), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(ac_session_state_parse(&s, "sleeping"), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "'sleeping' is not a state"));
	assert_true(ac_session_state_rank(AC_STATE_WAITING) < ac_session_state_rank(AC_STATE_RUNNING));
	assert_true(ac_session_state_rank(AC_STATE_RUNNING) < ac_session_state_rank(AC_STATE_ENDED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transcript_states),
		cmocka_unit_test(test_seed_statuses),
		cmocka_unit_test(test_names_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
