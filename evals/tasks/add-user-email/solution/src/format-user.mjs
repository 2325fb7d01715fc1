export function formatUser(user) {
  return user.email ? `${user.name} <${user.email}>` : user.name;
}
