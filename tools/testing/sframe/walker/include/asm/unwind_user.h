/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's own hooks of the architecture this build is for */
#include "walker_internal.h"

#if defined(WALKER_ARCH_X86)
#include "../../../../../../arch/x86/include/asm/unwind_user.h"
#elif defined(WALKER_ARCH_ARM64)
#include "../../../../../../arch/arm64/include/asm/unwind_user.h"
#elif defined(WALKER_ARCH_S390)
#include "../../../../../../arch/s390/include/asm/unwind_user.h"
#endif
