//! What can go wrong talking to GitLab, each saying what to do about it.

#[derive(Debug, thiserror::Error)]
pub enum GitlabError {
    #[error("{0} is not set (GitLab runners set it; the token is a CI/CD variable you add)")]
    MissingEnv(&'static str),
    #[error("CI_API_V4_URL must be an http(s) URL, not {0:?}")]
    BadApiUrl(String),
    #[error("CI_PROJECT_ID must be a project's number, not {0:?}")]
    BadProject(String),
    #[error("the GitLab token is empty or has spaces in it")]
    BadToken,
    #[error(transparent)]
    BadSha(#[from] crate::forge::NotASha),
    #[error("{0:?} is not a GitLab username")]
    BadAuthor(String),
    #[error(
        "there is no merge request here: pass --mr IID (CI_MERGE_REQUEST_IID is set in merge request pipelines)"
    )]
    NoMergeRequest,
    #[error("the artifact path {0:?} must be relative, without `..`")]
    BadArtifactPath(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Call(#[from] crate::forge::CallError),
    #[error(transparent)]
    Marker(#[from] crate::forge::EmptyMarker),
    #[error(transparent)]
    PlanFile(#[from] crate::forge::PlanFileError),
    #[error(transparent)]
    Workspace(#[from] crate::manifest::WorkspaceError),
    #[error(transparent)]
    People(#[from] crate::manifest::people::PeopleError),
    #[error(
        "cannot read the members of the GitLab group {group} (the people file's group `{name}`): {source}; the token (GUILDCTL_GITLAB_TOKEN) needs read_api and to see the group"
    )]
    Group {
        group: String,
        name: String,
        source: Box<crate::forge::CallError>,
    },
}
