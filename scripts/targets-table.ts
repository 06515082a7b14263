/** Print the target table of the README and docs/targets.md (rendered from test/targets/matrix.ts). */
import { renderTargetTable } from "../test/targets/matrix.js";

console.log(renderTargetTable());
