// The one error a hook may throw on purpose.

/** The request does not have the shape Metacontroller sends; answered with HTTP 400, never a 200. */
export class HookInputError extends Error {
  constructor(
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'HookInputError';
  }
}
