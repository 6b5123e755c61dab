// One row of the bench's leads file (First Name,Last Name,Phone,Email) as a plain keep-alive
// fetch POST, its body read to the end: what the hand-written references (fetch-loop.mjs,
// oracle.mjs) send, with none of callctl's code.
export async function postContact(baseUrl, key, line) {
  const [firstName, lastName, phone, email] = line.split(',');
  const res = await fetch(`${baseUrl}/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ firstName, lastName, phone, email }),
  });
  await res.arrayBuffer();
  return res;
}
