/* SwiftPM needs a source file in a C target; the target exists to export
 * include/fusionkit.h to Swift as the module CFusionKit. */
#include "../../include/fusionkit.h"
