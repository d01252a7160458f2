/* SPDX-License-Identifier: MIT */
/*
 * Co-location plans: parsing and formatting (see pti_plan.h).  No
 * allocation and no locks: the interposer parses the plan inside
 * pthread_create, possibly before anything else of the program ran.
 */
#include "pti_plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One thread reference at @s (up to a separator): an index or @NAME,
 * appended to @p for @cpu.  Returns the end of the token, or NULL with
 * the reason in @why. */
static const char *add_ref(const char *s, int cpu, struct pti_plan *p,
			   const char **why)
{
	struct pti_plan_entry *e;
	size_t len;

	if (p->n >= PTI_PLAN_MAX) {
		*why = "too many threads in the plan (at most 1024)";
		return NULL;
	}
	e = &p->e[p->n];
	e->cpu = cpu;
	e->index = 0;
	e->name[0] = '\0';
	if (*s == '@') {
		s++;
		len = strspn(s, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$");
		if (len == 0 || isdigit((unsigned char)s[0])) {
			*why = "expected a function name after '@'";
			return NULL;
		}
		if (len >= PTI_PLAN_NAME) {
			*why = "function name longer than 63 bytes";
			return NULL;
		}
		memcpy(e->name, s, len);
		e->name[len] = '\0';
		s += len;
	} else {
		char *end;

		if (!isdigit((unsigned char)*s)) {
			*why = "expected a thread creation index (1, 2, ...) "
			       "or @function";
			return NULL;
		}
		errno = 0;
		e->index = strtoul(s, &end, 10);
		if (errno || e->index == 0) {
			*why = "thread creation indices start at 1";
			return NULL;
		}
		s = end;
	}
	for (int i = 0; i < p->n; i++)
		if (p->e[i].index == e->index &&
		    strcmp(p->e[i].name, e->name) == 0) {
			*why = "thread named twice in the plan";
			return NULL;
		}
	p->n++;
	return s;
}

static const char *parse_cpu(const char *s, int *cpu, const char **why)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s)) {
		*why = "expected a CPU number";
		return NULL;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v < 0 || v >= PTI_PLAN_CPUS) {
		*why = "CPU number out of range (0 to 1023)";
		return NULL;
	}
	*cpu = (int)v;
	return end;
}

/* One line of the file: blank, "# comment", or "cpu N: REF REF ...". */
static const char *parse_line(const char *s, struct pti_plan *p)
{
	const char *why = NULL;
	int cpu;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || *s == '#')
		return NULL;
	if (strncmp(s, "cpu", 3) != 0 || (s[3] != ' ' && s[3] != '\t'))
		return "expected 'cpu N: THREAD...'";
	s += 3;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!(s = parse_cpu(s, &cpu, &why)))
		return why;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s++ != ':')
		return "expected ':' after the CPU number";
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			break;
		if (!(s = add_ref(s, cpu, p, &why)))
			return why;
		if (*s && *s != ' ' && *s != '\t' && *s != '#')
			return "threads are separated by spaces";
	}
	return NULL;
}

int pti_plan_read_file(const char *path, struct pti_plan *p, char *err,
		       size_t errlen)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	p->n = 0;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		const char *why;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path,
				 lineno);
			fclose(f);
			return -1;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if ((why = parse_line(line, p))) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
			fclose(f);
			return -1;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (p->n == 0) {
		snprintf(err, errlen, "%s: the plan names no thread", path);
		return -1;
	}
	return 0;
}

int pti_plan_parse_env(const char *s, struct pti_plan *p, char *err,
		       size_t errlen)
{
	const char *start = s, *why = NULL;
	int cpu;

	p->n = 0;
	while (*s) {
		if (!(s = parse_cpu(s, &cpu, &why)))
			goto bad;
		if (*s++ != ':') {
			why = "expected ':' after the CPU number";
			goto bad;
		}
		for (;;) {
			if (!(s = add_ref(s, cpu, p, &why)))
				goto bad;
			if (*s != ',')
				break;
			s++;
		}
		if (*s == ';')
			s++;
		else if (*s) {
			why = "expected ',' or ';'";
			goto bad;
		}
	}
	if (p->n == 0) {
		why = "the plan names no thread";
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "RCL_RUN_COLOCATE='%.64s': %s", start, why);
	return -1;
}

int pti_plan_format_env(const struct pti_plan *p, char *buf, size_t len)
{
	size_t used = 0;
	int last = -1;

	buf[0] = '\0';
	for (int i = 0; i < p->n; i++) {
		const struct pti_plan_entry *e = &p->e[i];
		int n;

		if (e->cpu != last)
			n = snprintf(buf + used, len - used,
				     "%s%d:", used ? ";" : "", e->cpu);
		else
			n = snprintf(buf + used, len - used, ",");
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
		if (e->index)
			n = snprintf(buf + used, len - used, "%lu", e->index);
		else
			n = snprintf(buf + used, len - used, "@%s", e->name);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
		last = e->cpu;
	}
	return 0;
}

int pti_plan_cpu(const struct pti_plan *p, unsigned long index,
		 const char *name)
{
	int by_name = -1;

	for (int i = 0; i < p->n; i++) {
		const struct pti_plan_entry *e = &p->e[i];

		if (e->index && e->index == index)
			return e->cpu;
		if (!e->index && name && by_name < 0 &&
		    strcmp(e->name, name) == 0)
			by_name = e->cpu;
	}
	return by_name;
}
