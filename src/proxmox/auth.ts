/**
 * How requests authenticate. API tokens (default) need nothing but a header. Tickets (password login)
 * need the `PVEAuthCookie` cookie and, on every write, the CSRFPreventionToken header; a ticket lives
 * 2 h, so it is renewed (by posting it as the password) once it is older than `renewAfterMs`. Secrets
 * and tickets live in #private fields, which util.inspect and JSON.stringify never show.
 */
export interface AuthHeaders {
  headers(write: boolean): Promise<Record<string, string>>;
  /** Called after a 401: drop what may be stale so the next request logs in again. Returns whether a retry can help. */
  invalidate(): boolean;
}

export class TokenAuth implements AuthHeaders {
  readonly #header: string;

  /** `tokenId` is the full id `user@realm!name`. */
  constructor(tokenId: string, secret: string) {
    this.#header = `PVEAPIToken=${tokenId}=${secret}`;
  }

  async headers(): Promise<Record<string, string>> {
    return { authorization: this.#header };
  }

  invalidate(): boolean {
    return false;
  }
}

interface Ticket {
  ticket: string;
  csrf: string;
  obtainedMs: number;
}

export class TicketAuth implements AuthHeaders {
  #current?: Ticket;
  #pending?: Promise<Ticket>;
  readonly #login: (username: string, password: string) => Promise<{ ticket: string; CSRFPreventionToken: string }>;
  readonly #password: string;
  /** How many tickets were obtained (logins + renewals), for tests and diagnostics. */
  issued = 0;

  constructor(
    login: (username: string, password: string) => Promise<{ ticket: string; CSRFPreventionToken: string }>,
    private readonly username: string,
    password: string,
    private readonly renewAfterMs = 3600_000,
  ) {
    this.#login = login;
    this.#password = password;
  }

  async headers(write: boolean): Promise<Record<string, string>> {
    const ticket = await this.valid();
    return {
      cookie: `PVEAuthCookie=${encodeURIComponent(ticket.ticket)}`,
      ...(write ? { csrfpreventiontoken: ticket.csrf } : {}),
    };
  }

  invalidate(): boolean {
    const had = this.#current !== undefined;
    this.#current = undefined;
    return had;
  }

  private async valid(): Promise<Ticket> {
    const age = this.#current ? Date.now() - this.#current.obtainedMs : Infinity;
    if (this.#current && age < this.renewAfterMs) return this.#current;
    this.#pending ??= this.obtain(this.#current).finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  private async obtain(previous?: Ticket): Promise<Ticket> {
    let data;
    try {
      // Renewal: the still-valid ticket stands in for the password.
      data = await this.#login(this.username, previous?.ticket ?? this.#password);
    } catch (err) {
      if (!previous) throw err;
      data = await this.#login(this.username, this.#password);
    }
    this.issued++;
    this.#current = { ticket: data.ticket, csrf: data.CSRFPreventionToken, obtainedMs: Date.now() };
    return this.#current;
  }
}
