/* Golden: a header of a few tokens (condinit_hdr_ok.c). */
#define NWORKERS 4
