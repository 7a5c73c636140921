// Dashboard users: an email and a password hash, belonging to one account. Created at sign-up or by
// `verdict user add`; the email is the identity (lower-cased), so one email is one user.
import { PasswordTiming } from "./password-timing.js";
import { decoyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword, type PasswordHash } from "./password.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";

export interface UserRecord {
  email: string;
  account_id: string;
  password: PasswordHash;
  created_at: string;
}

/** Why a new user was refused, per field, in words for the person filling the form. */
export class UserInputError extends Error {
  override readonly name = "UserInputError";
  constructor(
    readonly field: "email" | "password",
    message: string,
  ) {
    super(message);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** The longest email, in UTF-8 bytes, that fits in a forward path (RFC 5321, 4.5.3.1.3). */
export const MAX_EMAIL_BYTES = 254;

/** Whether an email is short enough to look up or keep; checked before anything about it is stored. */
export function emailFits(email: string): boolean {
  return Buffer.byteLength(email, "utf8") <= MAX_EMAIL_BYTES;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The field errors of a proposed email and password; empty when both are acceptable. */
export function checkNewUser(email: string, password: string): UserInputError[] {
  const problems: UserInputError[] = [];
  const normalised = normaliseEmail(email);
  if (!EMAIL.test(normalised) || !emailFits(normalised))
    problems.push(new UserInputError("email", "Enter an email address like name@example.com."));
  if (password.length < MIN_PASSWORD_LENGTH) {
    problems.push(new UserInputError("password", `Use at least ${MIN_PASSWORD_LENGTH} characters.`));
  }
  return problems;
}

export class Users {
  private readonly timing = new PasswordTiming();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async get(email: string): Promise<UserRecord | undefined> {
    const raw = await this.redis.get(this.keys.dashboardUser(normaliseEmail(email)));
    return raw === null ? undefined : (JSON.parse(raw) as UserRecord);
  }

  /** Adds a user to an account; throws UserInputError when a field is unacceptable or the email is taken. */
  async add(accountId: string, email: string, password: string): Promise<UserRecord> {
    const [problem] = checkNewUser(email, password);
    if (problem) throw problem;
    const record: UserRecord = {
      email: normaliseEmail(email),
      account_id: accountId,
      password: await hashPassword(password),
      created_at: new Date().toISOString(),
    };
    // SET NX: two sign-ups racing for one email cannot both win.
    const stored = await this.redis.set(this.keys.dashboardUser(record.email), JSON.stringify(record), "NX");
    if (stored === null) throw new UserInputError("email", "An account already uses this email. Sign in instead.");
    return record;
  }

  async isTaken(email: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.dashboardUser(normaliseEmail(email)))) === 1;
  }

  /**
   * The user when the password is right; undefined for a wrong email or password alike, after as long. An
   * email with no user mostly waits a recent check's duration instead of hashing (password-timing.ts).
   */
  async authenticate(email: string, password: string): Promise<UserRecord | undefined> {
    const user = await this.get(email);
    if (!user && !this.timing.checkUnknown()) {
      await new Promise((resolve) => setTimeout(resolve, this.timing.waitMs()));
      return undefined;
    }
    const stored = user?.password ?? (await decoyHash());
    const started = performance.now();
    const ok = await verifyPassword(password, stored);
    this.timing.record(performance.now() - started);
    return ok && user ? user : undefined;
  }
}
