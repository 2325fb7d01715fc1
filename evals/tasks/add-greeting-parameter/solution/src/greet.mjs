export function greet(name, greeting = "Hello") {
  return `${greeting}, ${name}!`;
}
