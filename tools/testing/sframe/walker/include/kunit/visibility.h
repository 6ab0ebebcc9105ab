/* SPDX-License-Identifier: GPL-2.0 */
/* What the walker takes from <kunit/visibility.h>: see walker_internal.h */
#include "walker_internal.h"
