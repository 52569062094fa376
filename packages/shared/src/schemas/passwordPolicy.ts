import { z } from 'zod';

/**
 * What a new password must be (OWASP ASVS 2.1): at least 8 characters, not only spaces, and not one
 * of the passwords attackers try first. The list holds the commonest passwords of 8+ characters from
 * the public breach-corpus top lists (they are what a guessing run starts with), compared ignoring
 * case and surrounding spaces. Used by the account forms (console) and the server alike.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  'password',
  'password1',
  'password12',
  'password123',
  'password1234',
  'passw0rd',
  'p@ssword',
  'p@ssw0rd',
  'pa$$word',
  'password!',
  'password01',
  'mypassword',
  'newpassword',
  'changeme',
  'changeme1',
  'changeme123',
  'letmein1',
  'letmein123',
  '12345678',
  '123456789',
  '1234567890',
  '12345678910',
  '123123123',
  '11111111',
  '111111111',
  '1111111111',
  '00000000',
  '000000000',
  '0000000000',
  '88888888',
  '87654321',
  '987654321',
  '0987654321',
  '12341234',
  '11223344',
  '123456789a',
  '1q2w3e4r',
  '1q2w3e4r5t',
  '1qaz2wsx',
  '1qaz2wsx3edc',
  'zaq12wsx',
  'qwertyui',
  'qwertyuiop',
  'qwerty123',
  'qwerty12',
  'qwerty1234',
  'qwe123qwe',
  'asdfghjk',
  'asdfghjkl',
  'zxcvbnm1',
  'zxcvbnma',
  'abcd1234',
  'abc12345',
  'abcdefgh',
  'abcdefg1',
  'a1234567',
  'aa123456',
  'iloveyou',
  'iloveyou1',
  'sunshine',
  'sunshine1',
  'princess',
  'princess1',
  'football',
  'football1',
  'baseball',
  'basketball',
  'superman',
  'batman123',
  'starwars',
  'whatever',
  'trustno1',
  'welcome1',
  'welcome123',
  'welcome!',
  'admin123',
  'admin1234',
  'administrator',
  'adminadmin',
  'rootroot',
  'toor1234',
  'master12',
  'computer',
  'internet',
  'michael1',
  'jennifer',
  'jordan23',
  'charlie1',
  'shadow12',
  'dragon12',
  'monkey12',
  'lovely123',
  'freedom1',
  'access14',
  'mustang1',
  'q1w2e3r4',
  'q1w2e3r4t5',
  'passpass',
  'testtest',
  'test1234',
  'test12345',
  'demo1234',
  'guest123',
  'secret12',
  'secret123',
  'default1',
  'summer2024',
  'summer2025',
  'winter2024',
  'winter2025',
  'spring2025',
  'autumn2025',
  'adplane1',
  'adplane123',
]);

export function passwordProblem(password: string): string | null {
  if (password.trim() === '') return 'cannot be only spaces';
  if (password.length < 8) return 'must be at least 8 characters';
  if (COMMON_PASSWORDS.has(password.trim().toLowerCase())) return 'is one of the most common passwords; choose another';
  return null;
}

/** A new password field: required (min 8, not common) when set; '' means "keep the old one" on update. */
export const newPasswordField = z
  .string()
  .max(200, 'must be at most 200 characters')
  .default('')
  .superRefine((v, ctx) => {
    if (v === '') return;
    const problem = passwordProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
