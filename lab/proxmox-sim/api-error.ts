/**
 * An error the simulator answers the way PVE does: 400 with per-parameter messages ("Parameter
 * verification failed."), or any other status whose message is the HTTP reason phrase and the body's
 * `message` (libpve-http-server-perl >= 5.2.0).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string>,
  ) {
    super(message);
  }
}

export const paramError = (errors: Record<string, string>) =>
  new ApiError(400, 'Parameter verification failed.', errors);
/** PVE's plain `die "…\n"`: HTTP 500 with the message. */
export const fail = (message: string) => new ApiError(500, message);
