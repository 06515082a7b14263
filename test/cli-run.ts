/** The `loom` command run from the sources (bin/loom runs the built dist): `node --import tsx test/cli-run.ts ARGS`. */
import { runCommandLine } from "../src/cli.js";

await runCommandLine(process.argv.slice(2));
