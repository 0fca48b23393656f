// The forged header the console tests post to a sandbox hook's callback: a
// JiveEXTN header of the sandbox tenant whose signature (the bytes of the word
// "signature") is no HMAC-SHA256 signature, so the receiver refuses it with
// 401 and logs it as rejected with that reason.

/** The `authorization` of a forged postback: refused 401, "JiveEXTN signature is not an HMAC-SHA256 signature". */
export const FORGED_AUTHORIZATION =
  "JiveEXTN algorithm=HmacSHA256&client_id=x&jive_url=https%3A%2F%2Fa.example&tenant_id=sandbox-tenant&timestamp=1&signature=c2lnbmF0dXJl";
