T("Includes")
E("include_missing", "`cannot find include file \"PATH\"`",
  "An include path is looked up relative to the including file, then in each `-I` directory in order.",
  "tiny", wrong=[("kernel k", 'include "layouts/common.tile";\n\nkernel k')], fix=[('include "layouts/common.tile";\n\n', '')],
  fixtext="give the right path, or add the directory with `-I` (here the include is removed).")
E("include_self", "`\"PATH\" includes itself`",
  "An include cycle. A file that is included twice without a cycle is read once (as with `#pragma once`), so diamond-shaped includes are fine.",
  "tiny", wrong=[("kernel k", 'include "include_self.tile";\n\nkernel k')], fix=[('include "include_self.tile";\n\n', '')])
