/** Test helper: the error of class `cls` that `f` throws; anything else, or nothing, fails the test. */
export function thrownBy<E extends Error>(cls: abstract new (...args: never[]) => E, f: () => unknown): E {
  try {
    f();
  } catch (e) {
    if (e instanceof cls) return e;
    throw e;
  }
  throw new Error(`expected a ${cls.name}, got none`);
}
