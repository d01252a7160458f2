/* A unit without locks that includes the helpers' header and has a
 * third, unrelated `coder` (xz's stream_decoder.c beside
 * stream_decoder_mt.c and stream_encoder_mt.c). */
#include "sync.h"

typedef struct {
	int level;
	int flags;
} coder;

int plain_level(int preset)
{
	coder c = { preset & 0xf, preset >> 4 };

	return c.level + c.flags;
}
