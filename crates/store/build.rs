//! `sqlx::migrate!` embeds the migrations when the crate compiles; this
//! makes cargo recompile it when a migration is added or changed.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
