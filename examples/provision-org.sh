#!/usr/bin/env bash
#
# provision-org.sh: set up an organization with its teams and invitations, the way a CI job would.
#
# Idempotent: each step asks the `till` CLI to do something only if it is not done yet (`--if-not-exists`), so
# running this again changes nothing and still exits 0. It uses nothing but the CLI: no curl, no jq.
#
# Who and where:
#   TILL        the till binary to run (default: `till` on the PATH)
#   TILL_URL    the daemon, and TILL_TOKEN a session token or API key of the user doing the provisioning;
#               without them, the CLI's current profile (`till login`) is used
#   ORG_NAME    the organization's display name (default: Acme)
#   ORG_SLUG    its slug, which is what identifies it on re-runs (default: acme)
#
# The daemon needs TILL_ORG_TEAMS=on for the team steps; without it `till team create` says so and the script stops.
#
# Output: one line per step on stdout, "changed" or "unchanged" and what, then a summary line. Messages from the CLI
# (errors included) go to stderr. Any failing step stops the script with that step's exit code (1 failure,
# 2 usage, 4 not signed in), so a CI job fails loudly instead of half-provisioning in silence.

set -euo pipefail

TILL="${TILL:-till}"
ORG_NAME="${ORG_NAME:-Acme}"
ORG_SLUG="${ORG_SLUG:-acme}"

# The teams the organization should have, by name. (A new organization also gets a default team named after it.)
TEAMS=(
  "Engineering"
  "Support"
)

# Who should be invited: "e-mail|role|teams", teams comma-separated by name (or id), possibly none. Roles are
# member, admin or owner. Someone already invited (pending) or already a member is left as they are: to change the
# role of someone who has joined, run `till org members role <e-mail> <role> --org <slug>`.
INVITATIONS=(
  "ada@acme.example|admin|Engineering"
  "grace@acme.example|member|Engineering,Support"
  "linus@acme.example|member|Support"
)

changed=0
unchanged=0

# step LABEL ARGS...: runs `till ARGS... --json` and reports whether it changed anything. Every step here uses
# --if-not-exists, whose JSON says "created": true or "invited": true exactly when something was made.
step() {
  local label=$1 out
  shift
  out=$("$TILL" "$@" --json)
  if grep -Eq '"(created|invited)": *true' <<<"$out"; then
    changed=$((changed + 1))
    echo "changed    $label"
  else
    unchanged=$((unchanged + 1))
    echo "unchanged  $label"
  fi
}

# 1. The organization. --if-not-exists matches on the slug among the organizations the signed-in user belongs to; a
#    slug taken by someone else's organization is an error (ORGANIZATION_SLUG_ALREADY_TAKEN), not a match.
#    --keep-active: the session's active organization is the user's choice, not this script's; every step below
#    names the organization with --org instead.
step "organization $ORG_SLUG" org create --name "$ORG_NAME" --slug "$ORG_SLUG" --if-not-exists --keep-active

# 2. Teams, matched by name within the organization.
for team in "${TEAMS[@]}"; do
  step "team $team" team create "$team" --org "$ORG_SLUG" --if-not-exists
done

# 3. Invitations. Each carries its role and teams: the invitee joins them on accepting (`till org accept <id>`).
for entry in "${INVITATIONS[@]}"; do
  IFS='|' read -r email role teams <<<"$entry"
  team_args=()
  if [[ -n "$teams" ]]; then
    IFS=',' read -r -a team_names <<<"$teams"
    for team in "${team_names[@]}"; do team_args+=(--team "$team"); done
  fi
  # ${team_args[@]+...} expands to nothing for an empty array, which `set -u` would otherwise reject on old bash.
  step "invitation $email ($role)" org invite "$email" --role "$role" --org "$ORG_SLUG" ${team_args[@]+"${team_args[@]}"} --if-not-exists
done

echo "provision-org: $changed changed, $unchanged unchanged"
