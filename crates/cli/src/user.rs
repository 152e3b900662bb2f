//! `monte user`: the operator's tools for players' accounts. There is no
//! e-mail: a player who forgot a password asks the operator for a new one.

use std::io::BufRead;

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use rand::Rng;

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Give an account a new password and sign it out everywhere. The new
    /// password is made up and printed once, or read from standard input
    /// with --password-stdin (never from the command line, where other
    /// users and the shell's history would see it)
    ResetPassword {
        /// The account's name (any case)
        name: String,
        /// Database: a SQLite file (`sqlite:PATH` or a path) or
        /// `postgres://...`. Default: $DATABASE_URL, else ./monte.db
        #[arg(long)]
        database: Option<String>,
        /// Read the new password from the first line of standard input
        #[arg(long)]
        password_stdin: bool,
    },
}

pub fn run(command: UserCommand) -> Result<()> {
    match command {
        UserCommand::ResetPassword { name, database, password_stdin } => {
            let (password, made_up) = if password_stdin {
                let mut line = String::new();
                std::io::stdin().lock().read_line(&mut line).context("reading the password from standard input")?;
                (line.trim_end_matches(['\r', '\n']).to_string(), false)
            } else {
                (made_up_password(), true)
            };
            let database = crate::serve::database_url(&database);
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(reset_password(&database, &name, &password))?;
            if made_up {
                println!("{password}");
            }
            eprintln!("monte: {name} has a new password and is signed out everywhere");
            Ok(())
        }
    }
}

/// 20 characters from an alphabet without look-alikes: about 117 bits.
fn made_up_password() -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rng();
    (0..20).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

async fn reset_password(database: &str, name: &str, password: &str) -> Result<()> {
    let key = monte_server::accounts::name_key(name).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    monte_server::accounts::check_password(password).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    let hash = monte_server::accounts::hash_password_now(password).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    let store = monte_store::Store::connect(database, "monte-user").await?;
    let found = store.set_password(&key, &hash).await;
    store.close().await;
    if !found? {
        bail!("no account named `{name}`");
    }
    Ok(())
}
