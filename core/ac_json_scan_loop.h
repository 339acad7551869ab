/* The JSON scanner's loop and the parts of it that meet strings, included
 * by ac_json_scan.c once per instruction set: SCAN_NAME(x) names this
 * copy's functions, and SCAN_SSE2 says whether a 16-byte vector loop finds
 * the end of a string's plain run.
 * Everything else the loop calls is shared and inlines into each copy, so
 * the copies differ only in that search, and the scalar copy is what the
 * vector ones are tested against (tests/test_json_scan_simd.c). Not a
 * header to include anywhere else. */

/* Validates the string whose opening quote is at p[-1] and returns the
 * address of its closing quote, or NULL with the error set. *has_escape
 * tells the caller whether a raw compare is enough; *beyond_ascii is set
 * when a byte from 0x80 (UTF-8) is in it. Always inlined: GCC
 * otherwise calls it from the key and the value, and an event line has
 * some thirty strings (the call cost 6-8% of a scan, issue 28). */
static inline __attribute__((always_inline)) const char *
SCAN_NAME(scan_string)(const scan *s, const char *p, bool *has_escape, bool *beyond_ascii)
{
	const char *end = s->end;

	for (;;) {
		uint64_t word;

#if defined(SCAN_SSE2)
		/* Event lines are mostly ASCII runs: take them 16 bytes at a
		 * time. */
		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
			__m128i stop = _mm_or_si128(
				_mm_or_si128(quote, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
				_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
			unsigned mask = (unsigned)_mm_movemask_epi8(stop);

			if (mask) {
				unsigned at = (unsigned)__builtin_ctz(mask);

				p += at;
				if ((unsigned)_mm_movemask_epi8(quote) >> at & 1)
					return p;
				goto stopped;
			}
			p += 16;
		}
#endif
		/* The rest, 8 bytes at a time. */
		while (end - p >= 8) {
			memcpy(&word, p, sizeof(word));
			if (!word_is_plain(word))
				break;
			p += 8;
		}
		while (p < end && string_class[(unsigned char)*p] == S_PLAIN)
			p++;
		if (p == end) {
			fail(s->error, s->text, end, "unterminated string");
			return NULL;
		}
#if defined(SCAN_SSE2)
stopped:
#endif
		switch (string_class[(unsigned char)*p]) {
		case S_QUOTE:
			return p;
		case S_CONTROL:
			fail(s->error, s->text, p, "control character 0x%02x in string",
			     (unsigned char)*p);
			return NULL;
		case S_ESCAPE:
			*has_escape = true;
			p = scan_escape(s, p);
			break;
		default:
			*beyond_ascii = true;
			p = scan_utf8(s, p);
			break;
		}
		if (!p)
			return NULL;
	}
}

/* A string value at *pp (its opening quote). */
static inline int SCAN_NAME(scan_string_value)(scan *s, const char **pp)
{
	const char *start = *pp, *p;
	bool escaped = false;

	if (!(p = SCAN_NAME(scan_string)(s, start + 1, &escaped, &s->beyond_ascii)))
		return AC_ECORRUPT;
	p++;
	if (s->pending)
		record(s->out, s->pending, AC_JSON_STRING, start, (size_t)(p - start), escaped,
		       false, 0);
	*pp = p;
	return NEXT_AFTER_VALUE;
}

/* Any value at *pp (p < end). */
static inline int SCAN_NAME(scan_value)(scan *s, const char **pp)
{
	s->lv->count++;
	switch (**pp) {
	case '"':
		return SCAN_NAME(scan_string_value)(s, pp);
	case '{':
	case '[':
		return open_container(s, pp);
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return scan_number(s, pp);
	case 't':
		return scan_literal(s, pp, "true", 4, AC_JSON_TRUE);
	case 'f':
		return scan_literal(s, pp, "false", 5, AC_JSON_FALSE);
	case 'n':
		return scan_literal(s, pp, "null", 4, AC_JSON_NULL);
	default:
		return unexpected_value(s, *pp);
	}
}

/* An object's key and its ':'; *pp is just past a '{' or an object's ','
 * and past the space after it. */
static inline int SCAN_NAME(scan_key)(scan *s, const char **pp)
{
	const char *p = *pp, *start;
	bool escaped = false;

	if (p == s->end)
		return fail(s->error, s->text, p, "unexpected end of document");
	if (*p != '"') {
		if (*p == '}')
			return fail(s->error, s->text, p, "trailing comma before '}'");
		return fail(s->error, s->text, p, "expected a string key");
	}
	start = ++p;
	if (!(p = SCAN_NAME(scan_string)(s, p, &escaped, &s->beyond_ascii)))
		return AC_ECORRUPT;
	s->pending = s->descend = 0;
	if (s->lv->mask)
		match_key(s, start, p, escaped);
	p = skip_space(p + 1, s->end);
	if (p == s->end || *p != ':')
		return fail(s->error, s->text, p, "expected ':' after object key");
	p = skip_space(p + 1, s->end);
	if (p == s->end)
		return fail(s->error, s->text, p, "unexpected end of document");
	*pp = p;
	return NEXT_VALUE;
}

/* ac_json_scan_prepared_printable() in this copy. */
static int SCAN_NAME(scan_run)(ac_json_span *out, const char *text, size_t len,
			       const ac_json_paths *paths, ac_json_scan_error *error,
			       bool *out_printable)
{
	struct level stack[AC_JSON_MAX_DEPTH + 1];
	const char *end = text + len, *p;
	scan s;
	int next;

	scan_begin(&s, stack, out, text, len, paths, error);
	p = skip_space(text, end);
	if (p == end)
		return fail(error, text, p, "empty document");
	for (next = NEXT_VALUE; next >= 0;) {
		switch (next) {
		case NEXT_VALUE:
			next = SCAN_NAME(scan_value)(&s, &p);
			break;
		case NEXT_KEY:
			next = SCAN_NAME(scan_key)(&s, &p);
			break;
		case NEXT_CLOSE:
			next = close_container(&s, p);
			break;
		case NEXT_AFTER_VALUE:
			next = after_value(&s, &p);
			break;
		default:
			p = skip_space(p, end);
			if (p != end)
				return fail(error, text, p, "trailing characters after the document");
			/* Outside strings valid JSON is ASCII below 0x7F; inside,
			 * a DEL is rare enough to look for only here. */
			if (out_printable)
				*out_printable = !s.beyond_ascii && !memchr(text, 0x7F, len);
			return 0;
		}
	}
	return next;
}
