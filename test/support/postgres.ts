// A fresh PostgreSQL database of a test file's own on the machine's server (127.0.0.1:5432, trust auth),
// dropped when the file is done.
import { randomBytes } from "node:crypto";
import postgres from "postgres";

const SERVER = process.env.VERDICT_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432";

export interface TestDatabase {
  url: string;
  sql: postgres.Sql;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `verdict_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(`${SERVER}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = `${SERVER}/${name}`;
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  return {
    url,
    sql,
    drop: async () => {
      await sql.end({ timeout: 5 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 5 });
    },
  };
}
