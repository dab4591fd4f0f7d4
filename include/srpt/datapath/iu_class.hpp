/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The little the channel core must know about an IU before handing it on:
 * its opcode (does it need a send context? does it cost a credit?) and
 * whether a command keeps its receive buffer (immediate data). Full parsing
 * and validation are the IU parser's job (iu_parse.hpp), called from the
 * environment's SubmitCmd/SubmitTaskMgmt hooks.
 */
#ifndef SRPT_DATAPATH_IU_CLASS_HPP
#define SRPT_DATAPATH_IU_CLASS_HPP

#include <srpt/datapath/ioctx_ring.hpp>
#include <stdint.h>

namespace srpt
{

/*
 * Classifies the first @len bytes of a received IU: byte 0 is the SRP
 * opcode; for SRP_CMD the high nibble of byte 5 (buf_fmt) is the data-out
 * descriptor format, 3 meaning immediate data. An empty IU is kOther.
 */
IuClass ClassifySrpIu(const uint8_t *iu, uint32_t len);

} // namespace srpt

#endif
