/**
 * Every name PoCL's OpenCL C headers give a kernel is reserved on the OpenCL targets: the types,
 * enumerators and macros of `opencl-c-base.h` (a kernel named `memory_order` was refused by PoCL:
 * it is OpenCL 2.0's enum type, reserved by Metal's list only). Read from the installed header;
 * skipped, saying so, where PoCL is not installed.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isReserved } from "../../codegen/names.js";

const HEADER = "/usr/share/pocl/include/opencl-c-base.h";
const present = existsSync(HEADER);
if (!present) console.warn(`[skip] ${HEADER} is not installed (Debian's pocl-opencl-icd): OpenCL header names not checked`);

/** Typedef names, enumerators and macro names the header declares (what a kernel's code can see). */
function declaredNames(text: string): Set<string> {
  const out = new Set<string>();
  const code = text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ");
  for (const m of code.matchAll(/#\s*define\s+([A-Za-z_]\w*)/g)) out.add(m[1]!);
  for (const m of code.matchAll(/typedef\s+[^;{]*?\b([A-Za-z_]\w*)\s*;/g)) out.add(m[1]!);
  for (const m of code.matchAll(/}\s*([A-Za-z_]\w*)\s*;/g)) out.add(m[1]!);
  for (const body of code.matchAll(/\benum\s*\w*\s*{([^}]*)}/g)) {
    for (const m of body[1]!.matchAll(/(?:^|,)\s*([A-Za-z_]\w*)/g)) out.add(m[1]!);
  }
  return out;
}

describe.skipIf(!present)("OpenCL header names", () => {
  it("every type, enumerator and macro of opencl-c-base.h is reserved on opencl and cucl", () => {
    const names = [...declaredNames(readFileSync(HEADER, "utf8"))];
    expect(names).toContain("memory_order");
    expect(names.length).toBeGreaterThan(200);
    const free = names.filter((n) => !isReserved(n, "opencl") || !isReserved(n, "cucl"));
    expect(free).toEqual([]);
  });
});

describe.skipIf(!present)("OpenCL built-in functions", () => {
  it("every function opencl-c.h declares is reserved on opencl and cucl", () => {
    const text = readFileSync(HEADER.replace("-base.h", ".h"), "utf8");
    // Declarations read `T __ovld [__cnfn] name(args);`.
    const names = new Set([...text.matchAll(/__ovld(?:\s+__\w+)*\s+(?:\w+\s+)*?([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]!));
    expect(names).toContain("get_global_id");
    expect(names.size).toBeGreaterThan(300);
    expect([...names].filter((n) => !isReserved(n, "opencl") || !isReserved(n, "cucl"))).toEqual([]);
  });
});
