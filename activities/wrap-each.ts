type AnyFunction = (...args: never[]) => Promise<unknown>;

/**
 * Every activity of `activities` called through `around`, under its own name (the worker registers
 * activities by their function's name).
 */
export function wrapEach<T extends Record<string, AnyFunction>>(
  activities: T,
  around: (call: () => Promise<unknown>) => Promise<unknown>,
): T {
  const wrapped: Record<string, AnyFunction> = {};
  for (const [name, fn] of Object.entries(activities)) {
    const named = {
      async [name](...args: never[]) {
        return await around(() => fn(...args));
      },
    };
    wrapped[name] = named[name]!;
  }
  return wrapped as T;
}
