/* SPDX-License-Identifier: MIT */
/*
 * mcload: a small, bounded load generator for memcached's text protocol,
 * used by the memcached harness to profile the server and to compare the
 * original and refactored servers' throughput.
 *
 * It only ever connects to 127.0.0.1.  Each of -c connections runs in its
 * own thread: -n requests at most, for -d seconds at most, a get/set mix
 * over -k keys.  Every reply is read and checked (a set must answer
 * STORED, a get must end with END); any protocol error counts as an error
 * and makes the exit status 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define VALUE_MAX 4096

static int opt_port = 11211, opt_conns = 4, opt_keys = 1000, opt_getpct = 90;
static int opt_vsize = 64;
static long opt_ops = 200000;
static double opt_seconds = 10;

struct conn {
	pthread_t tid;
	int fd;
	unsigned long seed;
	long ops, errors;
	char buf[VALUE_MAX + 512];
	size_t len; /* bytes of buf holding unread reply data */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read until the reply buffer ends with @end; 0, or -1 on EOF/error. */
static int read_until(struct conn *c, const char *end)
{
	size_t el = strlen(end);

	c->len = 0;
	for (;;) {
		ssize_t r;

		if (c->len >= el && memcmp(c->buf + c->len - el, end, el) == 0)
			return 0;
		if (c->len == sizeof(c->buf))
			return -1;
		r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c->len += (size_t)r;
	}
}

static int one_op(struct conn *c, const char *value)
{
	char req[VALUE_MAX + 128];
	unsigned long r;
	int k, n;

	c->seed = c->seed * 6364136223846793005UL + 1442695040888963407UL;
	r = c->seed >> 17;
	k = (int)(r % (unsigned long)opt_keys);
	if ((int)((r >> 20) % 100) < opt_getpct) {
		n = snprintf(req, sizeof(req), "get mcload:%d\r\n", k);
		if (send_all(c->fd, req, (size_t)n) || read_until(c, "END\r\n"))
			return -1;
		return 0;
	}
	n = snprintf(req, sizeof(req), "set mcload:%d 0 0 %d\r\n%s\r\n", k,
		     opt_vsize, value);
	if (send_all(c->fd, req, (size_t)n) || read_until(c, "\r\n"))
		return -1;
	return strncmp(c->buf, "STORED\r\n", 8) == 0 ? 0 : -1;
}

static void *client(void *arg)
{
	struct conn *c = arg;
	char value[VALUE_MAX + 1];
	double t0 = now();

	memset(value, 'v', (size_t)opt_vsize);
	value[opt_vsize] = '\0';
	while (c->ops < opt_ops && (c->ops & 63 || now() - t0 < opt_seconds)) {
		if (one_op(c, value) != 0) {
			c->errors++;
			break; /* the stream is out of sync: stop this conn */
		}
		c->ops++;
	}
	return NULL;
}

static int connect_local(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* never anything else */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mcload [-p PORT] [-c CONNS] [-n OPS] [-d SECONDS] "
		"[-k KEYS] [-g GET%%] [-v VALUE_BYTES]\n"
		"Bounded get/set load on memcached at 127.0.0.1:PORT (only "
		"loopback).\n"
		"  -p  port (default 11211)\n"
		"  -c  connections, one thread each (default 4, max %d)\n"
		"  -n  requests per connection, at most (default 200000)\n"
		"  -d  seconds, at most (default 10, max 600)\n"
		"  -k  keys (default 1000)  -g  %% gets (default 90)  "
		"-v  value bytes (default 64)\n"
		"Prints 'throughput: N ops/s'; exit 1 on any error.\n",
		MAX_CONNS);
}

static long num(int opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr,
			"mcload: -%c: '%s' is not a number in [%ld, %ld]\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv)
{
	int o;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		exit(0);
	}
	while ((o = getopt(argc, argv, "p:c:n:d:k:g:v:h")) != -1) {
		switch (o) {
		case 'p':
			opt_port = (int)num(o, optarg, 1, 65535);
			break;
		case 'c':
			opt_conns = (int)num(o, optarg, 1, MAX_CONNS);
			break;
		case 'n':
			opt_ops = num(o, optarg, 1, 1L << 40);
			break;
		case 'd':
			opt_seconds = (double)num(o, optarg, 1, 600);
			break;
		case 'k':
			opt_keys = (int)num(o, optarg, 1, 1 << 24);
			break;
		case 'g':
			opt_getpct = (int)num(o, optarg, 0, 100);
			break;
		case 'v':
			opt_vsize = (int)num(o, optarg, 1, VALUE_MAX);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mcload: unexpected argument '%s'\n",
			argv[optind]);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static struct conn conns[MAX_CONNS];
	long ops = 0, errors = 0;
	double t0, t1;
	int i, rc;

	parse(argc, argv);
	for (i = 0; i < opt_conns; i++) {
		conns[i].seed = (unsigned long)i * 7919 + 1;
		conns[i].fd = connect_local(opt_port);
		if (conns[i].fd < 0) {
			fprintf(stderr,
				"mcload: cannot connect to 127.0.0.1:%d: %s\n",
				opt_port, strerror(errno));
			return 1;
		}
	}
	t0 = now();
	for (i = 0; i < opt_conns; i++) {
		rc = pthread_create(&conns[i].tid, NULL, client, &conns[i]);
		if (rc != 0) {
			fprintf(stderr, "mcload: pthread_create: %s\n",
				strerror(rc));
			return 1;
		}
	}
	for (i = 0; i < opt_conns; i++) {
		pthread_join(conns[i].tid, NULL);
		ops += conns[i].ops;
		errors += conns[i].errors;
		close(conns[i].fd);
	}
	t1 = now();
	printf("mcload: %d connections, %ld requests, %ld errors, %.3f s\n",
	       opt_conns, ops, errors, t1 - t0);
	printf("throughput: %.0f ops/s\n", (double)ops / (t1 - t0));
	return errors ? 1 : 0;
}
