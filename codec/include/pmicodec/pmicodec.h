/* The PMI codec: decoder, encoder, schema table and auth challenge for the
 * PMI-1 line protocol and the PMI-2 framed protocol.  See SPEC.md. */
#ifndef PMICODEC_PMICODEC_H
#define PMICODEC_PMICODEC_H

#include "pmicodec/types.h"
#include "pmicodec/error.h"
#include "pmicodec/message.h"
#include "pmicodec/decoder.h"
#include "pmicodec/encoder.h"
#include "pmicodec/schema.h"
#include "pmicodec/auth.h"

#define PMICODEC_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif
PMC_API const char *pmc_version(void);
#ifdef __cplusplus
}
#endif
#endif
