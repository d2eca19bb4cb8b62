import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A value encrypted with AES-256-GCM: what is stored instead of a secret. */
export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

/** Encrypts secrets at rest (DKIM private keys) with a 256-bit key from configuration. */
export class SecretBox {
  private readonly key: Buffer;

  /** `base64Key`: 32 bytes, base64; undefined: a random key for this process only. */
  constructor(base64Key: string | undefined) {
    this.key = base64Key ? Buffer.from(base64Key, 'base64') : randomBytes(32);
    if (this.key.length !== 32) throw new Error('the secrets key must be 32 bytes, base64-encoded');
  }

  seal(plain: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  open(sealed: Sealed): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  }
}
