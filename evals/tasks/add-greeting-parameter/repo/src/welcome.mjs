import { greet } from "./greet.mjs";

export function welcome(user) {
  return `${greet(user.name)} You have ${user.unread} unread messages.`;
}
