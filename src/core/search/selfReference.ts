/**
 * Whether a query asks about what the user said: it speaks of the asker in the first person
 * singular ("what did I name my cat") and not of the one it asks in the second ("what did you
 * suggest"). In a history of user_message and model_turn events, the answer to such a question is
 * in the user's own messages, which search.ts then lifts. A request's "can you" or "could you"
 * ("can you remind me where I parked") addresses the listener without asking about it.
 *
 * English only; the word lists are data in kernel/search_constants.json, read the same way by
 * kernel/scroll_search.py (`asks_about_user`).
 */
import { FIRST_PERSON, REQUEST_WORDS, SECOND_PERSON } from './constants';

export function asksAboutUser(query: string): boolean {
  const words = query.toLowerCase().replace(/\u2019/g, "'").split(/[^a-z']+/);
  let first = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i].replace(/^'+|'+$/g, '');
    if (FIRST_PERSON.has(w)) first = true;
    else if (SECOND_PERSON.has(w) && !(w === 'you' && i > 0 && REQUEST_WORDS.has(words[i - 1].replace(/^'+|'+$/g, '')))) return false;
  }
  return first;
}
