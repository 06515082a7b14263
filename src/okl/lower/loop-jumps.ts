/**
 * `continue` in a plain loop of an @outer body whose trips hold @inner loops or barriers (nekRS's
 * boundary kernels: `for (int f = 0; f < p_Nfaces; ++f) { const int bc = EToB[…]; if (bc == 0)
 * continue; for (…; @inner) … }`). Every work-item of a group runs such a loop's trips together, so
 * it cannot be an opaque C loop; `continue` skips the rest of the trip, which is the rest of the
 * body under the negated condition:
 *
 *   { A; if (c) continue; B; }   ->   { A; if (c) {} else { B } }
 *   { A; if (c) { X; continue; } B; }   ->   { A; if (c) { X } else { B } }
 *
 * (where a branch may fall through as well as continue, the rest follows it there too: it is
 * repeated in both branches, each instruction under its branch's condition). The conditions that
 * now guard @inner loops and barriers must be uniform over the group (checked where the `if` is
 * lowered: kernel-statements.ts). `break` is `flag = 1; continue;` with a flag the caller sets to 0
 * before the loop, every trip's body guarded by `!flag` (the trips after it then do nothing; their
 * barriers still run, as all work-items reach them):
 *
 *   { A; if (c) break; B; }   ->   { if (!flag) { A; if (c) { flag = 1; } else { B } } }
 *
 * A `continue` or `break` inside a `switch`, and a block whose declarations the rest of the body would
 * see, are refused with their line:column.
 *
 *   withoutContinue(body)   // { body: { A; if (c) {} else { B } }, guarded: [that if], breaks: false }
 */
import type * as A from "../syntax/ast.js";
import { someAst } from "./ast-queries.js";

/** The body without its jumps, and each `if` that now guards the rest of a trip (with the `continue` or `break` it stands for). */
export interface JumpFree {
  readonly body: A.Stmt;
  readonly guarded: ReadonlyMap<A.If, A.Stmt>;
  /** Whether the body breaks: it reads and sets the flag `flag`, which must be 0 before the loop. */
  readonly breaks: boolean;
}

/** Why a body's jumps cannot be rewritten, and where. */
export interface JumpRefusal {
  readonly refuse: string;
  readonly pos: A.Pos;
}

/** The first `break` or `continue` of the loop whose body is `s` (not of loops or switches inside it), if any. */
export function ownJumpOf(s: A.Stmt, inSwitch = false): A.Stmt | undefined {
  switch (s.kind) {
    case "continue": return s;
    case "break": return inSwitch ? undefined : s;
    case "compound": for (const x of s.items) { const j = ownJumpOf(x, inSwitch); if (j) return j; } return undefined;
    case "if": return ownJumpOf(s.then, inSwitch) ?? (s.else ? ownJumpOf(s.else, inSwitch) : undefined);
    case "switch": case "case": return ownJumpOf(s.body, true);
    default: return undefined;
  }
}

const block = (items: A.Stmt[], pos: A.Pos): A.Compound => ({ kind: "compound", items, attributes: [], pos });

/** `body` with every `continue` of its loop replaced by structured control flow (see the module comment). */
export function withoutContinue(body: A.Stmt, flag: string): JumpFree | JumpRefusal {
  const guarded = new Map<A.If, A.Stmt>();
  let breaks = false;
  const ident = (pos: A.Pos): A.Ident => ({ kind: "ident", name: flag, pos });
  let refusal: JumpRefusal | undefined;
  const refuse = (why: string, pos: A.Pos): A.Stmt[] => {
    refusal ??= { refuse: why, pos };
    return [];
  };
  // The statements `items` followed by `tail` (the rest of the trip after them, a block of its own), without `continue`.
  const rewrite = (items: readonly A.Stmt[], tail: A.Stmt | undefined): A.Stmt[] => {
    const i = items.findIndex((x) => ownJumpOf(x) !== undefined);
    if (i < 0) return tail ? [...items, tail] : [...items];
    const head = items.slice(0, i);
    const s = items[i]!;
    const after = rewrite(items.slice(i + 1), tail);
    const rest = after.length > 0 ? block(after, after[0]!.pos) : undefined;
    switch (s.kind) {
      case "continue": return head;
      case "if": {
        const branch = (b: A.Stmt | undefined): A.Stmt => block(rewrite(b ? [b] : [], rest), b?.pos ?? s.pos);
        const out: A.If = { ...s, then: branch(s.then), else: branch(s.else) };
        guarded.set(out, (ownJumpOf(s.then) ?? ownJumpOf(s.else!))!);
        return [...head, out];
      }
      case "compound": {
        const declared = new Set(s.items.flatMap((x) => (x.kind === "declaration" ? x.declarators.map((d) => d.name) : [])));
        const seen = rest && someAst(rest, (n) => n.kind === "ident" && declared.has(n.name));
        if (seen) return refuse(`a block with a "continue" declares a name the statements after the block also use; rename one of them`, s.pos);
        return [...head, block(rewrite(s.items, rest), s.pos)];
      }
      case "break": {
        breaks = true;
        const set: A.Assign = { kind: "assign", op: "=", target: ident(s.pos), value: { kind: "int", value: 1, text: "1", suffix: "", pos: s.pos }, pos: s.pos };
        return [...head, { kind: "expr", expr: set, attributes: [], pos: s.pos }];
      }
      default:
        return refuse(`"continue" inside a ${s.kind} of a loop whose trips hold @inner loops or barriers is not supported (write the cases as if/else)`, ownJumpOf(s)!.pos);
    }
  };
  const items = rewrite(body.kind === "compound" ? body.items : [body], undefined);
  if (refusal) return refusal;
  if (!breaks) return { body: block(items, body.pos), guarded, breaks };
  const live: A.If = { kind: "if", cond: { kind: "unary", op: "!", operand: ident(body.pos), pos: body.pos }, then: block(items, body.pos), else: undefined, attributes: [], pos: body.pos };
  return { body: block([live], body.pos), guarded, breaks };
}
