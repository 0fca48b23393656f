// The callback URL and place URI that register()'s tests register with.

export const CALLBACK = "https://receiver.example/hooks/1";
export const PLACE = "https://c.example/api/core/v3/places/42";
