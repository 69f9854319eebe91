package main

// The CI that `acpconform init` writes beside a starter: a GitHub Actions
// workflow on the acpconform action, and a GitLab CI job that installs a
// static acpconform in a Go image and runs it in the language's image.
// Both pin this binary's release or commit, or --pin's (pinTo).

const githubWorkflow = `# .github/workflows/acpconform.yml, written by acpconform init: checks this
# [[.Role]] against the acpconform catalogue on every push and pull request. The
# summary lands on the job's page; the reports (JUnit, JSON, Markdown, HTML)
# in the artifact acpconform-reports. docs/ci/README.md has every input.
name: acpconform
on:
  push:
  pull_request:
permissions:
  contents: read
jobs:
  conformance:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false
[[- if .Setup]]
      - name: Prepare the [[.Role]]
        run: [[.Setup]]
[[- end]]
      - name: Check the [[.Role]]
[[- if .Unpinned]]
        # Not pinned: [[.Unpinned]].
        uses: acpconform/acpconform@[[.Action]]
[[- else]]
        uses: acpconform/acpconform@[[.Action]] # [[.Pin]]
[[- end]]
        with:
          role: [[.Role]]
          command: [[.Command]]
`

const gitlabJob = `# .gitlab-ci.yml, written by acpconform init: checks this [[.Role]] against the
# acpconform catalogue. The first job builds a static acpconform, the second
# runs it in the [[.Role]]'s own image; the reports are the job's artifacts,
# junit.xml as its test report.
stages: [build, conformance]

acpconform-build:
  stage: build
  image: golang:1.25
  script:
[[- if .Unpinned]]
    # Not pinned: [[.Unpinned]].
[[- else]]
    # Pinned: [[.Pin]].
[[- end]]
    - CGO_ENABLED=0 GOBIN="$CI_PROJECT_DIR/.acpconform" go install [[.Install]]
  artifacts:
    paths: [.acpconform/]

acpconform:
  stage: conformance
  image: [[.Image]]
  needs: [acpconform-build]
  script:
[[- if .Setup]]
    - [[.Setup]]
[[- end]]
    - .acpconform/acpconform [[.Role]] --junit acpconform-reports/junit.xml --json acpconform-reports/report.json --summary acpconform-reports/summary.md -- [[.Command]]
  artifacts:
    when: always
    paths: [acpconform-reports/]
    reports:
      junit: acpconform-reports/junit.xml
`
