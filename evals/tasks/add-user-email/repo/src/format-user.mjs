export function formatUser(user) {
  return user.name;
}
