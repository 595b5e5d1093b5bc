//! The builtin catalogue (`{"mode": "builtin", "name": ..., "parameters": ...}`): which names exist
//! for which hook, and the JSON entry point [`run`].

use crate::evaluate_ranked::{self, Ranked};
use crate::params::{Params, RuleError};
use crate::{evaluate, post_award, pqt, tie_break, vote_weight};
use agora_voting_schema::{Hook, HookInput};
use serde_json::Value;

/// Every builtin rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    // PQT
    OptionOnBallot,
    ValidRanking,
    ValidApproval,
    ValidScores,
    // Choice evaluation
    Plurality,
    WeightedPlurality,
    Approval,
    Borda,
    InstantRunoff,
    Copeland,
    Schulze,
    Score,
    // Tie-breaker
    EarliestVote,
    Lexicographic,
    SeededRandom,
    // Post-award
    AssignFirstWinner,
    Echo,
}

impl Builtin {
    /// All builtins, grouped by hook, names sorted within a hook.
    pub const ALL: [Builtin; 17] = [
        Builtin::OptionOnBallot,
        Builtin::ValidApproval,
        Builtin::ValidRanking,
        Builtin::ValidScores,
        Builtin::Approval,
        Builtin::Borda,
        Builtin::Copeland,
        Builtin::InstantRunoff,
        Builtin::Plurality,
        Builtin::Schulze,
        Builtin::Score,
        Builtin::WeightedPlurality,
        Builtin::EarliestVote,
        Builtin::Lexicographic,
        Builtin::SeededRandom,
        Builtin::AssignFirstWinner,
        Builtin::Echo,
    ];

    /// The name a function spec uses.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::OptionOnBallot => "option-on-ballot",
            Builtin::ValidRanking => "valid-ranking",
            Builtin::ValidApproval => "valid-approval",
            Builtin::ValidScores => "valid-scores",
            Builtin::Plurality => "plurality",
            Builtin::WeightedPlurality => "weighted-plurality",
            Builtin::Approval => "approval",
            Builtin::Borda => "borda",
            Builtin::InstantRunoff => "instant-runoff",
            Builtin::Copeland => "copeland",
            Builtin::Schulze => "schulze",
            Builtin::Score => "score",
            Builtin::EarliestVote => "earliest-vote",
            Builtin::Lexicographic => "lexicographic",
            Builtin::SeededRandom => "seeded-random",
            Builtin::AssignFirstWinner => "assign-first-winner",
            Builtin::Echo => "echo",
        }
    }

    /// The hook the rule is written for.
    pub fn hook(self) -> Hook {
        match self {
            Builtin::OptionOnBallot | Builtin::ValidRanking | Builtin::ValidApproval | Builtin::ValidScores => Hook::Pqt,
            Builtin::Plurality
            | Builtin::WeightedPlurality
            | Builtin::Approval
            | Builtin::Borda
            | Builtin::InstantRunoff
            | Builtin::Copeland
            | Builtin::Schulze
            | Builtin::Score => Hook::ChoiceEvaluation,
            Builtin::EarliestVote | Builtin::Lexicographic | Builtin::SeededRandom => Hook::TieBreaker,
            Builtin::AssignFirstWinner | Builtin::Echo => Hook::PostAward,
        }
    }

    /// The builtin called `name` for `hook`, or the message [`check`] returns.
    pub fn find(hook: Hook, name: &str) -> Result<Builtin, String> {
        if hook == Hook::Invitation {
            return Err(format!(
                "builtin rule {name:?} is not available for the {}: there are no builtin rules \
                 for this hook (use mode \"function\", \"dsl\", \"http\" or \"lambda\")",
                hook_name(hook)
            ));
        }
        if let Some(b) = Builtin::ALL.iter().find(|b| b.hook() == hook && b.name() == name) {
            return Ok(*b);
        }
        let mut message =
            format!("builtin rule {name:?} is not available for the {} (available: {})", hook_name(hook), names(hook).join(", "));
        if let Some(other) = Builtin::ALL.iter().find(|b| b.name() == name) {
            message.push_str(&format!("; {name:?} is a rule for the {}", hook_name(other.hook())));
        }
        Err(message)
    }
}

/// How messages name a hook.
fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::Invitation => "invitation creator hook",
        Hook::Pqt => "PQT hook",
        Hook::ChoiceEvaluation => "choice evaluation hook",
        Hook::TieBreaker => "tie-breaker hook",
        Hook::PostAward => "post-award hook",
    }
}

/// The builtin names for `hook`, sorted (empty for the invitation creator).
pub fn names(hook: Hook) -> Vec<&'static str> {
    Builtin::ALL.iter().filter(|b| b.hook() == hook).map(|b| b.name()).collect()
}

/// Ok if `name` is a builtin for this hook; otherwise Err with a message like
/// `builtin rule "foo" is not available for the choice evaluation hook (available: approval, borda, ...)`.
/// No builtins exist for `Hook::Invitation` (always Err, and the message says so).
pub fn check(hook: Hook, name: &str) -> Result<(), String> {
    Builtin::find(hook, name).map(|_| ())
}

/// Runs the builtin `name` for `hook` with the spec's `parameters` (a JSON object, `{}` when
/// absent) on the hook input, and returns the hook's JSON output (§4 output contracts).
pub fn run(hook: Hook, name: &str, parameters: &Value, input: &HookInput<'_>) -> Result<Value, RuleError> {
    let rule = Builtin::find(hook, name).map_err(RuleError::UnknownRule)?;
    let params = Params::new(parameters)?;
    let ui = &input.user_input;
    let options = &ui.subject_spec.voting_options_map;
    let votes = || ui.votes.ok_or(RuleError::MissingInput("votes", rule.name()));
    let winners = || ui.winners.ok_or(RuleError::MissingInput("winners", rule.name()));
    let vote_data = || ui.vote_data.ok_or(RuleError::MissingInput("vote_data", rule.name()));
    let goal = || Value::Object(ui.task.goal_data.clone());
    // The choice rules count each vote with its weight (`None`: no vote carries one).
    let weighted = || -> Result<_, RuleError> {
        let votes = votes()?;
        Ok((votes, vote_weight::weights(votes)?))
    };
    match rule {
        Builtin::OptionOnBallot => Ok(pqt::option_on_ballot(options, vote_data()?)),
        Builtin::ValidRanking => Ok(pqt::valid_ranking(options, vote_data()?)),
        Builtin::ValidApproval => Ok(pqt::valid_approval(options, vote_data()?)),
        Builtin::ValidScores => pqt::valid_scores(options, vote_data()?, &params),
        Builtin::Plurality => weighted().map(|(v, w)| evaluate::plurality(options, v, w.as_deref())),
        Builtin::WeightedPlurality => weighted().map(|(v, w)| evaluate::weighted_plurality(options, v, w.as_deref())),
        Builtin::Approval => weighted().map(|(v, w)| evaluate::approval(options, v, w.as_deref())),
        Builtin::Borda => weighted().and_then(|(v, w)| evaluate_ranked::run(Ranked::Borda, options, v, w.as_deref())),
        Builtin::InstantRunoff => weighted().and_then(|(v, w)| evaluate_ranked::run(Ranked::InstantRunoff, options, v, w.as_deref())),
        Builtin::Copeland => weighted().and_then(|(v, w)| evaluate_ranked::run(Ranked::Copeland, options, v, w.as_deref())),
        Builtin::Schulze => weighted().and_then(|(v, w)| evaluate_ranked::run(Ranked::Schulze, options, v, w.as_deref())),
        Builtin::Score => weighted().and_then(|(v, w)| evaluate::score(options, v, &params, w.as_deref())),
        Builtin::EarliestVote => tie_break::earliest_vote(votes()?, winners()?),
        Builtin::Lexicographic => tie_break::lexicographic(winners()?),
        Builtin::SeededRandom => tie_break::seeded_random(winners()?, &params, &ui.task.social_task_id),
        Builtin::AssignFirstWinner => Ok(post_award::assign_first_winner(winners()?, goal())),
        Builtin::Echo => Ok(post_award::echo(winners()?, goal())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue() {
        assert_eq!(
            names(Hook::ChoiceEvaluation),
            vec!["approval", "borda", "copeland", "instant-runoff", "plurality", "schulze", "score", "weighted-plurality"]
        );
        assert_eq!(names(Hook::Pqt), vec!["option-on-ballot", "valid-approval", "valid-ranking", "valid-scores"]);
        assert_eq!(names(Hook::TieBreaker), vec!["earliest-vote", "lexicographic", "seeded-random"]);
        assert_eq!(names(Hook::PostAward), vec!["assign-first-winner", "echo"]);
        assert!(names(Hook::Invitation).is_empty());
        for b in Builtin::ALL {
            assert_eq!(Builtin::find(b.hook(), b.name()), Ok(b));
        }
    }

    #[test]
    fn check_messages() {
        assert_eq!(check(Hook::ChoiceEvaluation, "borda"), Ok(()));
        let e = check(Hook::ChoiceEvaluation, "foo").unwrap_err();
        assert_eq!(
            e,
            "builtin rule \"foo\" is not available for the choice evaluation hook (available: \
             approval, borda, copeland, instant-runoff, plurality, schulze, score, weighted-plurality)"
        );
        let e = check(Hook::TieBreaker, "borda").unwrap_err();
        assert!(e.contains("\"borda\" is a rule for the choice evaluation hook"), "{e}");
        let e = check(Hook::Invitation, "plurality").unwrap_err();
        assert!(e.contains("no builtin rules for this hook"), "{e}");
    }
}
