// What the JiveEXTN signature's tests share: a secret, the signed
// parameters, a fixed time, and a header with one parameter replaced.

export const SECRET = btoa("sixteen byte key and then some more bytes");
export const PARAMS = {
  clientId: "client-1",
  jiveUrl: "https://community.example.com/sandbox",
  tenantId: "tenant-1",
};
export const NOW = 1_750_000_000_000;

export function replaceParam(header: string, name: string, value: string): string {
  return header.replace(new RegExp(`${name}=[^&]*`), `${name}=${value}`);
}
