/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Declarations shared by the C glue files. C only. */
#ifndef SRPT_GLUE_H
#define SRPT_GLUE_H

int srpt_ib_client_register(void);
void srpt_ib_client_unregister(void);

#endif
