/**
 * Public API entries whose implementation comes with a later issue. Each is exported under its
 * contract name and throws a clear error saying it is not built yet, so a script written against
 * API.md fails with a message instead of "undefined is not a function".
 */
// No entry waits here now; a later planned entry is `export const name = planned("name", "feature")`
// with this helper:
//
//   const planned = (name: string, feature: string) => (): never => {
//     throw new LoomError(`lp.${name} is not built yet in this version of Loom (${feature} comes with a later issue)`);
//   };
export {};
